// Reservation page, Delivery panel: the timeline, one lane per node, from the json_script data.
(function () {
  "use strict";
  var box = document.getElementById("delivery-timeline");
  var source = document.getElementById("delivery-timeline-data");
  if (!box || !source || !window.Plotly) return;
  var data = JSON.parse(source.textContent);
  if (!data) return;
  var groups = {};
  data.bars.forEach(function (b) {
    var g = groups[b.label] || (groups[b.label] = { base: [], x: [], y: [], colour: b.colour, kind: b.kind });
    var start = Date.parse(b.start);
    g.base.push(b.start);
    g.x.push(Date.parse(b.end) - start);
    g.y.push(b.node);
  });
  var traces = Object.keys(groups).map(function (label) {
    var g = groups[label];
    return {
      type: "bar", orientation: "h", name: label, base: g.base, x: g.x, y: g.y,
      marker: { color: g.colour, opacity: g.kind === "term" ? 0.35 : 0.9 },
      hovertemplate: label + " · %{y}<br>%{base|%Y-%m-%d %H:%M} UTC<extra></extra>",
    };
  });
  Plotly.newPlot(box, traces, {
    barmode: "overlay", height: 80 + 28 * data.lanes.length,
    margin: { l: 96, r: 16, t: 8, b: 40 },
    font: { family: "system-ui, sans-serif", size: 12 },
    xaxis: { type: "date", title: { text: "UTC" } },
    yaxis: { categoryorder: "array", categoryarray: data.lanes.slice().reverse(), automargin: true },
    legend: { orientation: "h", y: -0.3 },
  }, { displaylogo: false, responsive: true });
})();
