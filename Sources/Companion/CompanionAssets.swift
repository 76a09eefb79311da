/// The companion's static files, compiled in (no folder is served, so no path can reach
/// outside it): looked up by exact name.
enum CompanionAssets {
    static let files: [String: (contentType: String, body: String)] = [
        "companion.css": ("text/css; charset=utf-8", css),
        "companion.js": ("text/javascript; charset=utf-8", script),
        "icon.svg": ("image/svg+xml", icon),
    ]

    /// The tab's icon (else a browser asks for /favicon.ico, which is not served): a pace
    /// arrow in a circle.
    static let icon = """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="15" fill="#1d6fb8"/>\
        <path d="M9 21 L16 9 L23 21 Z" fill="#fff"/></svg>
        """

    static let css = """
        body { font-family: system-ui, sans-serif; margin: 0; color: #1d2733; background: #f6f7f9; }
        header { background: #1d2733; color: #fff; padding: .6em 1em; display: flex; flex-wrap: wrap; gap: .8em; align-items: center; }
        header a { color: #fff; text-decoration: none; }
        header form { margin-left: auto; }
        main { padding: 1em; max-width: 48em; }
        .notice { background: #e3f4e1; border: 1px solid #9ccc95; padding: .5em; }
        .refused { background: #fbe3e3; border: 1px solid #d89a9a; padding: .5em; }
        dl#live { display: grid; grid-template-columns: max-content auto; gap: .3em 1em; }
        dt { font-weight: bold; }
        dd { margin: 0; }
        pre { white-space: pre-wrap; word-break: break-all; }
        table { display: block; max-width: 100%; overflow-x: auto; border-collapse: collapse; }
        th, td { text-align: left; padding: .15em .5em .15em 0; }
        @media (max-width: 40em) {
          table.stack, table.stack tbody, table.stack tr, table.stack td { display: block; }
          table.stack thead { display: none; }
          table.stack tr { border-top: 1px solid #cfd4da; padding: .3em 0; }
          table.stack td { padding: .05em 0; overflow-wrap: anywhere; }
          table.stack td[data-label]::before { content: attr(data-label) ": "; font-weight: bold; }
        }
        .controls form { display: none; margin: .2em; }
        .controls[data-state="searching"] #command-start, .controls[data-state="ready"] #command-start,
        .controls[data-state="running"] #command-pause, .controls[data-state="running"] #command-lap,
        .controls[data-state="running"] #command-stop,
        .controls[data-state="running"] #command-waypoint, .controls[data-state="paused"] #command-resume,
        .controls[data-state="paused"] #command-stop, .controls[data-state="paused"] #command-waypoint { display: inline-block; }
        button { font-size: 1.05em; padding: .4em .9em; }
        input { font-size: 1.05em; padding: .3em; }
        """

    /// The live state: `GET /api/state` once a second into the elements of `#state`, and the
    /// control buttons posted without leaving the page (their forms work without it too).
    static let script = """
        "use strict";
        (function () {
          var live = document.getElementById("live");
          if (!live) { return; }
          function text(value) { return value === undefined || value === null || value === "" ? "–" : String(value); }
          // The same fields as StateView.fields on the server.
          function fields(data) {
            var status = data.status || {};
            var phase = status.phase !== undefined ? status.phase + "/" + status.phases : undefined;
            var distance = status.distance_m !== undefined ? (status.distance_m / 1000).toFixed(2) + " km" : undefined;
            var elapsed = status.elapsed_s !== undefined ? Math.floor(status.elapsed_s / 60) + " min " + Math.floor(status.elapsed_s % 60) + " s" : undefined;
            var heart = undefined, h = status.heart;
            if (h) {
              if (h.bpm === undefined) { heart = "strap " + h.strap; } else {
                heart = h.bpm + " bpm";
                if (h.zone !== undefined) { heart += h.zone === 0 ? ", below zone 1" : h.zone === 6 ? ", above zone 5" : ", zone " + h.zone; }
                if (h.hr === "high" && h.ceiling_bpm !== undefined) { heart += " (over " + h.ceiling_bpm + ")"; }
                else if (h.hr === "high" && h.limit_bpm) { heart += " (over " + h.limit_bpm[1] + ")"; }
                else if (h.hr === "low" && h.limit_bpm) { heart += " (under " + h.limit_bpm[0] + ")"; }
              }
            }
            return { state: status.state || data.state, plan: data.plan, workout: data.workout, phase: phase,
                     distance: distance, elapsed: elapsed, heart: heart, line: data.line };
          }
          function show(data) {
            var values = fields(data);
            Object.keys(values).forEach(function (name) {
              var element = document.getElementById(name);
              if (element) { element.textContent = text(values[name]); }
            });
            var raw = document.getElementById("raw");
            if (raw) { raw.textContent = JSON.stringify(data); }
            // The buttons of the state the device is in (the style shows those alone).
            var controls = document.getElementById("controls");
            if (controls) { controls.setAttribute("data-state", text(values.state)); }
            var updated = document.getElementById("updated");
            if (updated) { updated.textContent = new Date().toLocaleTimeString(); }
          }
          function refresh() {
            fetch("/api/state", { credentials: "same-origin", cache: "no-store" })
              .then(function (response) {
                if (response.status === 401) { window.location.assign("/login"); return null; }
                return response.ok ? response.json() : null;
              })
              .then(function (data) { if (data) { show(data); } })
              .catch(function () {});
          }
          document.querySelectorAll(".controls form").forEach(function (form) {
            form.addEventListener("submit", function (event) {
              event.preventDefault();
              // The same command at its JSON twin: /command/NAME -> /api/command/NAME.
              fetch("/api" + form.getAttribute("action"), { method: "POST", credentials: "same-origin", body: new URLSearchParams(new FormData(form)),
                                   headers: { "Accept": "application/json" } })
                .then(function (response) { return response.json(); })
                .then(function (answer) {
                  var reply = document.getElementById("reply");
                  if (reply) { reply.textContent = answer.reply || answer.error || ""; }
                  refresh();
                })
                .catch(function () {});
            });
          });
          refresh();
          window.setInterval(refresh, 1000);
        })();
        """
}
