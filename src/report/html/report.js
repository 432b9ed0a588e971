(function () {
  "use strict";
  var body = document.body;
  try {
    var table = document.getElementById("summary-table");
    if (table) {
      var headers = table.tHead.rows[0].cells;
      Array.prototype.forEach.call(headers, function (header, column) {
        header.addEventListener("click", function () {
          var up = !header.classList.contains("sorted-up");
          Array.prototype.forEach.call(headers, function (h) { h.classList.remove("sorted-up", "sorted-down"); });
          header.classList.add(up ? "sorted-up" : "sorted-down");
          var numeric = header.getAttribute("data-type") === "number";
          var rows = Array.prototype.slice.call(table.tBodies[0].rows);
          rows.sort(function (a, b) {
            var x = a.cells[column], y = b.cells[column];
            if (numeric) {
              var p = parseFloat(x.getAttribute("data-sort")), q = parseFloat(y.getAttribute("data-sort"));
              if (isNaN(p) && isNaN(q)) return 0;
              if (isNaN(p)) return 1;
              if (isNaN(q)) return -1;
              return up ? p - q : q - p;
            }
            var s = x.textContent, t = y.textContent;
            return up ? s.localeCompare(t) : t.localeCompare(s);
          });
          rows.forEach(function (row) { table.tBodies[0].appendChild(row); });
        });
      });
    }
    var highlighted = [];
    function highlight(key) {
      highlighted.forEach(function (element) { element.classList.remove("highlight"); });
      highlighted = key ? Array.prototype.slice.call(document.querySelectorAll('[data-pair="' + key + '"]')) : [];
      highlighted.forEach(function (element) { element.classList.add("highlight"); });
    }
    document.querySelectorAll("tr[data-pair], g[data-pair]").forEach(function (element) {
      element.addEventListener("mouseenter", function () { highlight(element.getAttribute("data-pair")); });
      element.addEventListener("mouseleave", function () { highlight(null); });
    });
    // A link to a pair opens its section (a closed <details> would hide the target).
    function openTarget() {
      var target = location.hash ? document.getElementById(location.hash.slice(1)) : null;
      if (target && target.tagName === "DETAILS") target.open = true;
    }
    window.addEventListener("hashchange", openTarget);
    openTarget();
    var toolbar = document.getElementById("pair-toolbar");
    if (toolbar) {
      toolbar.hidden = false;
      toolbar.querySelector("[data-action=expand]").addEventListener("click", function () {
        document.querySelectorAll("details.pair").forEach(function (d) { d.open = true; });
      });
      toolbar.querySelector("[data-action=collapse]").addEventListener("click", function () {
        document.querySelectorAll("details.pair").forEach(function (d) { d.open = false; });
      });
    }
    // Self-check: every chart in an open part of the page has a size and the marks it declares.
    var problems = [];
    var charts = document.querySelectorAll("svg[data-chart]");
    charts.forEach(function (svg) {
      var name = svg.getAttribute("data-chart");
      var expected = Number(svg.getAttribute("data-marks"));
      var marks = svg.querySelectorAll("[data-mark]").length;
      if (marks !== expected) problems.push(name + ": " + marks + " marks drawn, " + expected + " expected");
      if (svg.closest("details") && !svg.closest("details").open) return;
      var box = svg.getBoundingClientRect();
      if (!(box.width > 0 && box.height > 0)) problems.push(name + ": not laid out");
    });
    body.setAttribute("data-charts", String(charts.length));
    body.setAttribute("data-rendered", problems.length ? "error: " + problems.join("; ") : "ok");
  } catch (error) {
    body.setAttribute("data-rendered", "error: " + error.message);
    throw error;
  }
})();
