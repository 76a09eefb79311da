import PacerCore
import Testing

@Suite("CivilDate")
struct CivilDateTests {
    @Test(arguments: [
        (1900, 3, 1, -25_508), (1970, 1, 1, 0), (2000, 2, 29, 11_016), (2100, 3, 1, 47_541),
        (1600, 3, 1, -135_080), (1969, 12, 31, -1),
    ])
    func daysSince1970(_ year: Int, _ month: Int, _ day: Int, _ days: Int) throws {
        let date = try #require(CivilDate(year: year, month: month, day: day))
        #expect(date.daysSince1970 == days)
        #expect(CivilDate(daysSince1970: days) == date)
    }

    @Test func roundTripsEvery97thDayOver400Years() {
        var failures = 0
        for days in stride(from: -25_508, to: -25_508 + 146_097, by: 97) {
            let date = CivilDate(daysSince1970: days)
            if date.daysSince1970 != days || CivilDate(year: date.year, month: date.month, day: date.day) != date {
                failures += 1
            }
        }
        #expect(failures == 0)
    }

    /// Walks 400 years one day at a time with a naive calendar written here, and compares
    /// every 97th day.
    @Test func agreesWithANaiveCalendar() {
        func naiveLength(_ month: Int, _ year: Int) -> Int {
            let leap = year % 400 == 0 || (year % 4 == 0 && year % 100 != 0)
            return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        }
        var (year, month, day) = (1900, 3, 1)
        var mismatches: [String] = []
        for days in -25_508 ..< -25_508 + 146_097 {
            if days % 97 == 0 {
                let date = CivilDate(daysSince1970: days)
                if (date.year, date.month, date.day) != (year, month, day) {
                    mismatches.append("\(days): \(date) != \(year)-\(month)-\(day)")
                }
            }
            day += 1
            if day > naiveLength(month, year) {
                day = 1
                month += 1
                if month > 12 { month = 1; year += 1 }
            }
        }
        #expect(mismatches.isEmpty)
        #expect((year, month, day) == (2300, 3, 1))
    }

    @Test(arguments: [
        (2023, 2, 29), (2023, 13, 1), (2023, 0, 1), (2023, 4, 31), (2023, 1, 0), (2023, 1, 32), (1900, 2, 29),
        (2100, 2, 29),
    ])
    func refusesDatesThatDoNotExist(_ year: Int, _ month: Int, _ day: Int) {
        #expect(CivilDate(year: year, month: month, day: day) == nil)
    }

    @Test(arguments: [(2000, 2, 29), (2024, 2, 29), (2023, 12, 31), (2023, 4, 30)])
    func acceptsDatesThatExist(_ year: Int, _ month: Int, _ day: Int) throws {
        let date = try #require(CivilDate(year: year, month: month, day: day))
        #expect((date.year, date.month, date.day) == (year, month, day))
    }

    @Test func addingDaysCrossesYearAndLeapDay() throws {
        let newYearsEve = try #require(CivilDate(year: 1999, month: 12, day: 31))
        #expect(newYearsEve.adding(days: 1) == CivilDate(year: 2000, month: 1, day: 1))
        let feb28 = try #require(CivilDate(year: 2024, month: 2, day: 28))
        #expect(feb28.adding(days: 1) == CivilDate(year: 2024, month: 2, day: 29))
        #expect(feb28.adding(days: 2) == CivilDate(year: 2024, month: 3, day: 1))
        #expect(feb28.adding(days: -59) == CivilDate(year: 2023, month: 12, day: 31))
    }

    @Test func descriptionIsISODate() throws {
        #expect(try #require(CivilDate(year: 2000, month: 2, day: 29)).description == "2000-02-29")
        #expect(try #require(CivilDate(year: 987, month: 1, day: 5)).description == "0987-01-05")
    }

    @Test func ordersByCalendar() throws {
        let a = try #require(CivilDate(year: 1999, month: 12, day: 31))
        let b = try #require(CivilDate(year: 2000, month: 1, day: 1))
        #expect(a < b)
        #expect(!(b < a))
    }
}
