// lore: small progressive enhancements. Every page works without this file.
(function () {
  "use strict";

  // "/" focuses the search box, unless you are typing somewhere.
  document.addEventListener("keydown", function (e) {
    if (e.key !== "/" || e.ctrlKey || e.metaKey || e.altKey) return;
    var t = e.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.isContentEditable)) return;
    var box = document.querySelector("[data-live-search]") || document.querySelector("[data-slash-focus]");
    if (box) { e.preventDefault(); box.focus(); box.select(); }
  });

  // Ctrl+Enter submits the paste.
  document.querySelectorAll("textarea").forEach(function (area) {
    area.addEventListener("keydown", function (e) {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && area.form) { area.form.submit(); }
    });
  });

  // Results as you type.
  var box = document.querySelector("[data-live-search]");
  var out = document.getElementById("live-results");
  if (box && out) {
    var timer = null, last = null, seq = 0;
    var render = function (data, query) {
      out.textContent = "";
      if (!query.trim()) return;
      var list = document.createElement("ol");
      list.className = "results";
      (data.hits || []).forEach(function (h) {
        var li = document.createElement("li");
        li.className = "result";
        var head = document.createElement("div");
        head.className = "result-head";
        var kind = document.createElement("span");
        kind.className = "kind kind-" + h.kind;
        kind.textContent = h.kind;
        head.appendChild(kind);
        if (h.severity) {
          var sev = document.createElement("span");
          sev.className = "sev sev-" + h.severity;
          sev.textContent = h.severity;
          head.appendChild(document.createTextNode(" "));
          head.appendChild(sev);
        }
        var a = document.createElement("a");
        a.className = "result-title";
        a.href = h.url;
        a.textContent = h.title;
        head.appendChild(a);
        if (h.section) {
          var sec = document.createElement("span");
          sec.className = "section";
          sec.textContent = " § " + h.section;
          head.appendChild(sec);
        }
        li.appendChild(head);
        var p = document.createElement("p");
        p.className = "snippet";
        p.innerHTML = h.snippet; // escaped by the server; only <b> marks
        li.appendChild(p);
        list.appendChild(li);
      });
      if (!list.children.length) {
        var none = document.createElement("p");
        none.className = "empty";
        none.textContent = "Nothing found yet.";
        out.appendChild(none);
        return;
      }
      out.appendChild(list);
      var more = document.createElement("p");
      more.className = "meta";
      more.textContent = data.total + " matching document(s) · " + data.elapsed_ms + " ms";
      out.appendChild(more);
    };
    box.addEventListener("input", function () {
      var query = box.value;
      if (query === last) return;
      last = query;
      clearTimeout(timer);
      timer = setTimeout(function () {
        var mine = ++seq;
        if (!query.trim()) { out.textContent = ""; return; }
        fetch("/api/search?limit=8&q=" + encodeURIComponent(query), { headers: { "Accept": "application/json" } })
          .then(function (r) { return r.ok ? r.json() : { hits: [], total: 0 }; })
          .then(function (data) { if (mine === seq) render(data, query); })
          .catch(function () {});
      }, 150);
    });
  }

  // Copy buttons on code blocks.
  document.querySelectorAll(".md pre, pre.pattern, pre.draft-text").forEach(function (pre) {
    if (!navigator.clipboard) return;
    var button = document.createElement("button");
    button.type = "button";
    button.className = "copy";
    button.textContent = "Copy";
    button.addEventListener("click", function () {
      var code = pre.querySelector("code") || pre;
      navigator.clipboard.writeText(code.innerText).then(function () {
        button.textContent = "Copied";
        setTimeout(function () { button.textContent = "Copy"; }, 1200);
      });
    });
    pre.appendChild(button);
  });
})();

// The postmortem form: add rows, live preview, the browser's UTC offset for new forms.
(function () {
  "use strict";
  var form = document.querySelector("[data-incident-form]");
  if (!form) return;
  var offset = form.querySelector("[data-local-offset]");
  var idField = form.querySelector("input[name=etag]");
  if (offset && idField && !idField.value) {
    var minutes = -new Date().getTimezoneOffset();
    var sign = minutes >= 0 ? "+" : "-";
    var abs = Math.abs(minutes);
    offset.value = sign + String(Math.floor(abs / 60)).padStart(2, "0") + ":" + String(abs % 60).padStart(2, "0");
  }
  form.querySelectorAll("table.rows").forEach(function (table) {
    var body = table.querySelector("tbody");
    var button = document.createElement("button");
    button.type = "button";
    button.className = "add-row";
    button.textContent = "+ add a row";
    button.addEventListener("click", function () {
      var last = body.lastElementChild;
      if (!last) return;
      var row = last.cloneNode(true);
      row.querySelectorAll("input").forEach(function (i) { i.value = ""; });
      body.appendChild(row);
      var first = row.querySelector("input");
      if (first) first.focus();
    });
    table.after(button);
  });
  var source = form.querySelector("[data-preview-source]");
  var target = document.querySelector("[data-preview]");
  if (!source || !target) return;
  var timer = null;
  var update = function () {
    var rows = [];
    var times = form.querySelectorAll("input[name=timeline_time]");
    form.querySelectorAll("input[name=timeline_text]").forEach(function (input, i) {
      rows.push({ time: times[i] ? times[i].value : "", text: input.value });
    });
    fetch("/api/preview", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ body: source.value, timeline: rows })
    }).then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) { if (data) target.innerHTML = data.html; })
      .catch(function () {});
  };
  var schedule = function () { clearTimeout(timer); timer = setTimeout(update, 250); };
  form.addEventListener("input", function (e) {
    if (e.target === source || (e.target.name || "").indexOf("timeline_") === 0) schedule();
  });
})();
