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

// "This is <runbook>: add the line": draft (a dry run) when opened, show the signature and what it
// matches in this paste, let the pattern and id be edited and checked again, then save.
(function () {
  var teaches = document.querySelectorAll("details.teach");
  if (!teaches.length) return;
  var pasteField = document.querySelector("#paste-again input[name=text]");
  var paste = pasteField ? pasteField.value : "";
  var el = function (tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    return e;
  };
  teaches.forEach(function (details) {
    var box = details.querySelector(".teach-form");
    var line = details.getAttribute("data-line");
    var state = { etag: null, token: "" };
    var runbook = el("input", { list: "runbook-ids", name: "runbook", placeholder: "search runbooks…", "aria-label": "Runbook", value: details.getAttribute("data-runbook") || "" });
    var pattern = el("textarea", { name: "pattern", rows: "2", spellcheck: "false", "aria-label": "Pattern", placeholder: "drafted from the line" });
    var id = el("input", { name: "id", "aria-label": "Signature id", placeholder: "drafted from the line" });
    var token = el("input", { name: "token", type: "password", placeholder: "LORE_TOKEN", hidden: "" });
    var check = el("button", { type: "button" }, "Preview");
    var save = el("button", { type: "button", class: "primary", disabled: "" }, "Add the signature");
    var out = el("div", { class: "teach-result", "aria-live": "polite" });
    var row = function (label, input) { var l = el("label", {}, label + " "); l.appendChild(input); return l; };
    box.appendChild(row("Runbook", runbook));
    box.appendChild(row("Pattern", pattern));
    box.appendChild(row("Signature id", id));
    box.appendChild(token);
    var buttons = el("div", { class: "row" });
    buttons.appendChild(check);
    buttons.appendChild(save);
    box.appendChild(buttons);
    box.appendChild(out);
    var body = function () {
      return JSON.stringify({ line: line, pattern: pattern.value || null, id: id.value || null, paste: paste });
    };
    var headers = function (extra) {
      var h = { "Content-Type": "application/json" };
      if (state.token) h.Authorization = "Bearer " + state.token;
      Object.keys(extra || {}).forEach(function (k) { h[k] = extra[k]; });
      return h;
    };
    var url = function () { return "/api/runbooks/" + encodeURIComponent(runbook.value.trim()) + "/signatures"; };
    var problems = function (list) {
      var ul = el("ul", { class: "problems" });
      list.forEach(function (p) { ul.appendChild(el("li", {}, typeof p === "string" ? p : p.message)); });
      return ul;
    };
    var preview = function () {
      save.disabled = true;
      out.textContent = "Checking…";
      if (!runbook.value.trim()) { out.textContent = "Pick the runbook this line belongs to."; return; }
      fetch(url() + "?dry_run=1", { method: "POST", headers: headers(), body: body() })
        .then(function (r) { return r.json().then(function (d) { return { status: r.status, data: d }; }); })
        .then(function (reply) {
          out.textContent = "";
          var d = reply.data;
          if (reply.status !== 200) {
            out.appendChild(el("p", { class: "error" }, d.error || ("HTTP " + reply.status)));
            if (d.problems) out.appendChild(problems(d.problems));
            return;
          }
          state.etag = d.etag;
          if (!pattern.value) pattern.value = d.signature.pattern;
          if (!id.value) id.value = d.signature.id;
          var caps = Object.keys(d.signature.captures || {}).map(function (k) { return k + "=" + d.signature.captures[k]; });
          out.appendChild(el("p", {}, "It matches " + d.matches.length + " line(s) of this paste" + (caps.length ? "; captures " + caps.join(", ") : "") + "."));
          if (d.matches.length) {
            var pre = el("pre", { class: "log" });
            d.matches.slice(0, 5).forEach(function (m) { pre.appendChild(el("span", { class: "ln hit-line" }, m.line + "  " + m.text + "\n")); });
            out.appendChild(pre);
          }
          if (d.valid) {
            out.appendChild(el("p", { class: "ok" }, "Passes every check. Nothing is written until you add it."));
            save.disabled = false;
          } else {
            out.appendChild(el("p", { class: "error" }, "It cannot be added as it is:"));
            out.appendChild(problems(d.problems));
          }
        })
        .catch(function () { out.textContent = "The server did not answer."; });
    };
    var store = function () {
      save.disabled = true;
      state.token = token.value || state.token;
      var extra = state.etag ? { "If-Match": state.etag } : {};
      fetch(url(), { method: "POST", headers: headers(extra), body: body() })
        .then(function (r) { return r.json().then(function (d) { return { status: r.status, data: d }; }); })
        .then(function (reply) {
          out.textContent = "";
          var d = reply.data;
          if (reply.status === 201) {
            out.appendChild(el("p", { class: "ok" }, "Added " + d.signature.id + " to " + d.runbook + "."));
            var again = el("button", { type: "button", class: "primary" }, "Match this paste again");
            again.addEventListener("click", function () { document.getElementById("paste-again").submit(); });
            out.appendChild(again);
            return;
          }
          if (reply.status === 401) {
            token.hidden = false;
            token.focus();
            out.appendChild(el("p", { class: "error" }, "This lore needs its token to write: enter it and add again."));
            save.disabled = false;
            return;
          }
          if (reply.status === 412) {
            state.etag = d.etag;
            out.appendChild(el("p", { class: "error" }, "The runbook changed meanwhile; check again, then add."));
            return;
          }
          out.appendChild(el("p", { class: "error" }, d.error || ("HTTP " + reply.status)));
          if (d.problems) out.appendChild(problems(d.problems));
        })
        .catch(function () { out.textContent = "The server did not answer."; save.disabled = false; });
    };
    check.addEventListener("click", preview);
    save.addEventListener("click", store);
    [pattern, id, runbook].forEach(function (i) { i.addEventListener("input", function () { save.disabled = true; }); });
    runbook.addEventListener("change", function () { pattern.value = ""; id.value = ""; preview(); });
    details.addEventListener("toggle", function () { if (details.open && runbook.value && !out.textContent) preview(); });
  });
})();
