// Comparison page: draw the charts from the json_script data and poll while scoring runs.
(function () {
  "use strict";

  var PALETTE = [];  // core.domain.PALETTE, read from the JSON in drawCharts
  var LAYOUT = {
    margin: { l: 56, r: 16, t: 8, b: 48 },
    height: 320,
    font: { family: "system-ui, sans-serif", size: 12 },
    legend: { orientation: "h", y: -0.2 },
    paper_bgcolor: "#fff",
    plot_bgcolor: "#fff",
  };
  var CONFIG = { displaylogo: false, responsive: true, modeBarButtonsToRemove: ["lasso2d", "select2d"] };

  function layout(extra) {
    return Object.assign({}, LAYOUT, extra);
  }

  function drawCharts(data) {
    if (!window.Plotly || !data) return;
    PALETTE = data.palette;
    var names = data.names;

    Plotly.newPlot("chart-scores", data.scores.map(function (s, i) {
      return { type: "bar", name: s.name, x: names, y: s.values, marker: { color: PALETTE[i] } };
    }), layout({ barmode: "stack", yaxis: { title: { text: "points (0–100)" }, range: [0, 100] } }), CONFIG);

    Plotly.newPlot("chart-prices", [
      { type: "bar", name: "List price", x: names, y: data.prices.list, marker: { color: "#9aa5b8" } },
      { type: "bar", name: "Effective price per useful GPU-hour", x: names, y: data.prices.effective,
        marker: { color: "#2455c3" } },
    ], layout({ barmode: "group", yaxis: { title: { text: "$ per GPU-hour" } } }), CONFIG);

    var curves = [];
    data.curves.forEach(function (c, i) {
      var color = PALETTE[i % PALETTE.length];
      curves.push({ type: "scatter", mode: "lines", name: c.name, x: c.x, y: c.y, line: { color: color } });
      curves.push({ type: "scatter", mode: "markers", name: c.name + " (chosen)", x: [c.chosen[0]], y: [c.chosen[1]],
        marker: { color: color, size: 10, symbol: "diamond" }, showlegend: false,
        hovertemplate: c.name + ": every %{x:.0f} min → %{y:.2f} %<extra></extra>" });
      if (c.optimum) {
        // Scored at the buyer's own interval: the optimum stays visible as a dotted drop line.
        curves.push({ type: "scatter", mode: "lines+markers", name: c.name + " (optimum)",
          x: [c.optimum[0], c.optimum[0]], y: [Math.min.apply(null, c.y), c.optimum[1]],
          line: { color: color, dash: "dot", width: 1 }, marker: { color: color, size: [0, 8], symbol: "circle-open" },
          showlegend: false, hovertemplate: c.name + ": optimum every %{x:.0f} min → %{y:.2f} %<extra></extra>" });
      }
    });
    Plotly.newPlot("chart-goodput", curves, layout({
      xaxis: { type: "log", title: { text: "checkpoint interval (min, log scale)" } },
      yaxis: { title: { text: "goodput (%)" } },
    }), CONFIG);

    Plotly.newPlot("chart-sensitivity", [{
      type: "bar", orientation: "h",
      x: data.shares.map(function (s) { return Math.round(s.share * 1000) / 10; }),
      y: data.shares.map(function (s) { return s.name; }),
      marker: { color: "#1a7f37" },
    }], layout({ xaxis: { title: { text: "% of draws won" }, range: [0, 100] }, yaxis: { automargin: true } }), CONFIG);
  }

  function poll(box) {
    var url = box.getAttribute("data-status-url");
    var text = box.querySelector("[data-status-text]");
    var bar = box.querySelector("[data-progress]");
    var timer = window.setInterval(function () {
      fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (body) {
          if (!body) return;
          if (body.state !== "pending") {
            window.clearInterval(timer);
            window.location.reload();
            return;
          }
          if (text) text.textContent = body.status_label + (body.bids ? " " + body.bids + " bids" : "");
          if (bar) bar.value = body.status === "running" ? 2 : 1;
        })
        .catch(function () { /* a dropped poll is retried on the next tick */ });
    }, 1000);
  }

  var data = document.getElementById("compare-data");
  drawCharts(data ? JSON.parse(data.textContent) : null);
  var box = document.getElementById("scoring-status");
  if (box && box.getAttribute("data-state") === "pending") poll(box);
})();
