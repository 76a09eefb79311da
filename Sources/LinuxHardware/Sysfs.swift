#if canImport(Glibc)
import Glibc
#endif

/// What the sysfs adapters (the battery gauge, the Wi-Fi radio's rfkill switch) share:
/// listing a class folder and joining its paths.
enum Sysfs {
    /// The entries of `folder` (its devices: `BAT0`, `rfkill2`), hidden ones left out, in
    /// the order the folder gives them; none when it is missing or unreadable.
    static func entries(of folder: String) -> [String] {
        guard let dir = opendir(folder) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name.isEmpty || name.hasPrefix(".") { continue }
            names.append(name)
        }
        return names
    }

    static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}
