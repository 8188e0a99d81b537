// Reservation, Observed page: the four capacities per day, from the json_script data. The table
// beside it holds the same numbers for readers without the chart.
(function () {
  "use strict";
  var box = document.getElementById("observed-capacities");
  var source = document.getElementById("observed-capacities-data");
  if (!box || !source || !window.Plotly) return;
  var data = JSON.parse(source.textContent);
  if (!data) return;
  var traces = data.series.map(function (s) {
    return {
      type: "scatter", mode: "lines+markers", name: s.label, x: data.days, y: s.values,
      line: { color: s.colour, shape: "hv", dash: s.key === "contracted" ? "dash" : "solid" },
      hovertemplate: s.label + " · %{x}: %{y:.2f} GPUs<extra></extra>",
    };
  });
  Plotly.newPlot(box, traces, {
    height: 320, margin: { l: 48, r: 12, t: 8, b: 40 },
    font: { family: "system-ui, sans-serif", size: 12 },
    xaxis: { type: "category", title: { text: "Day (UTC)" } },
    yaxis: { title: { text: "GPUs (daily average)" }, rangemode: "tozero" },
    legend: { orientation: "h", y: -0.25 },
  }, { displaylogo: false, responsive: true });
})();
