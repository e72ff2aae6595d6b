// e2e-check.js: injected by scripts/e2e.sh into a copy of report.html (the
// report itself has no scripts). Once the page has laid out, it checks
// what a reader would notice, and writes the problems, one a line, into a
// pre element with the id e2e-result, for the dumped DOM ("ok" when there
// are none):
// - an element wider than the viewport, other than inside a box that
//   scrolls on its own (overflow-x auto or scroll);
// - a text of a state graph overlapping another (their boxes in the SVG);
// - no sticky navigation;
// - a text of a state graph shown smaller than 11 px at the graph's
//   default zoom;
// - a table of the overview (the report's first screen) that scrolls
//   sideways.
(function () {
  var problems = [];
  var vw = document.documentElement.clientWidth;
  function scrolls(el) {
    for (var p = el.parentElement; p; p = p.parentElement) {
      var o = getComputedStyle(p).overflowX;
      if (o === "auto" || o === "scroll") return true;
    }
    return false;
  }
  function name(el) {
    var s = el.tagName.toLowerCase();
    if (el.id) s += "#" + el.id;
    if (el.className && typeof el.className === "string") s += "." + el.className.trim().split(/\s+/).join(".");
    return s;
  }
  if (document.documentElement.scrollWidth > vw + 1) {
    problems.push("page wider than the viewport: " + document.documentElement.scrollWidth + " > " + vw);
  }
  var all = document.body.getElementsByTagName("*");
  var wide = 0;
  for (var i = 0; i < all.length; i++) {
    var el = all[i];
    var r = el.getBoundingClientRect();
    if (r.width === 0 || r.right <= vw + 1 || scrolls(el)) continue;
    if (wide++ < 10) problems.push("element wider than the viewport: " + name(el) + " right edge " + Math.round(r.right) + " > " + vw);
  }
  var graphs = document.querySelectorAll(".graph svg");
  if (graphs.length === 0) problems.push("no state graph");
  for (var g = 0; g < graphs.length; g++) {
    var texts = graphs[g].querySelectorAll("text");
    var boxes = [];
    for (var t = 0; t < texts.length; t++) {
      if (texts[t].textContent.trim() === "") continue;
      boxes.push({ r: texts[t].getBoundingClientRect(), s: texts[t].textContent });
    }
    var overlaps = 0;
    for (var a = 0; a < boxes.length; a++) {
      for (var b = a + 1; b < boxes.length; b++) {
        var A = boxes[a].r, B = boxes[b].r;
        // A pixel of slack: glyph boxes of neighbouring lines touch.
        var w = Math.min(A.right, B.right) - Math.max(A.left, B.left);
        var h = Math.min(A.bottom, B.bottom) - Math.max(A.top, B.top);
        if (w > 1 && h > 1 && overlaps++ < 10) {
          problems.push("graph " + (graphs[g].closest("section") || {}).id + ": label '" + boxes[a].s + "' overlaps '" + boxes[b].s + "'");
        }
      }
    }
  }
  // Label size: dot writes font-size in the SVG's own units, which the
  // page scales by the drawn width over the viewBox's width. Folded panes
  // (closed details) are not shown, so not measured.
  var small = 0;
  for (var k = 0; k < graphs.length; k++) {
    var svg = graphs[k];
    if (svg.getClientRects().length === 0) continue;
    var vb = svg.viewBox && svg.viewBox.baseVal;
    if (!vb || !vb.width) continue;
    var scale = svg.getBoundingClientRect().width / vb.width;
    var ts = svg.querySelectorAll("text");
    for (var q = 0; q < ts.length; q++) {
      var px = parseFloat(ts[q].getAttribute("font-size") || "14") * scale;
      if (px < 11 && ts[q].textContent.trim() !== "" && small++ < 5) {
        problems.push("graph " + (svg.closest("section") || {}).id + ": label '" + ts[q].textContent + "' is " + px.toFixed(1) + " px (under 11)");
      }
    }
  }
  var heads = document.querySelectorAll("header .scroll");
  for (var h = 0; h < heads.length; h++) {
    if (heads[h].scrollWidth > heads[h].clientWidth + 1) {
      problems.push("the overview's table " + (h + 1) + " scrolls sideways: " + heads[h].scrollWidth + " > " + heads[h].clientWidth);
    }
  }
  var nav = document.querySelector("nav.top");
  if (!nav) {
    problems.push("no navigation (nav.top)");
  } else if (getComputedStyle(nav).position !== "sticky") {
    problems.push("the navigation does not stay at hand (position " + getComputedStyle(nav).position + ")");
  }
  var out = document.createElement("pre");
  out.id = "e2e-result";
  out.textContent = problems.length ? problems.join("\n") : "ok";
  document.body.appendChild(out);
})();
