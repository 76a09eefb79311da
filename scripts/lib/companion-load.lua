-- wrk's script for scripts/companion-load.py: every connection cycles through what a phone
-- asks of the companion page while a workout runs (mostly the live state, a poll a second
-- per open page; now and then a page), with the session cookie the script logged in for.
-- The responses that are not 2xx or 3xx are counted by wrk itself ("Non-2xx or 3xx").
local paths = {"/api/state", "/api/state", "/api/state", "/api/state", "/api/state",
               "/api/state", "/", "/activities", "/health", "/api/state"}
local cookie = os.getenv("PACER_COOKIE") or ""
local n = 0

request = function()
    n = n + 1
    local path = paths[(n % #paths) + 1]
    return wrk.format("GET", path, {["Cookie"] = cookie})
end
