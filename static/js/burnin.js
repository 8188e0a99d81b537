// Burn-in run page: draw the charts from json_script data, and poll the run's status while any
// file is queued or parsing (or the checks are being recomputed); reload once it settles.
(function () {
  "use strict";

  // Colours, sizes and rates come pre-formatted in the JSON (core.domain, core.formatting), so
  // a value and a collective look the same here as on the pages and in the PDF annex.
  var PALETTE = [];  // core.domain.PALETTE, read from the JSON in drawCharts
  var BASE = {
    margin: { l: 64, r: 16, t: 8, b: 56 },
    height: 340,
    font: { family: "system-ui, sans-serif", size: 12 },
    legend: { orientation: "h", y: -0.25 },
    paper_bgcolor: "#fff",
    plot_bgcolor: "#fff",
  };
  var CONFIG = { displaylogo: false, responsive: true, modeBarButtonsToRemove: ["lasso2d", "select2d"] };

  function layout(extra) { return Object.assign({}, BASE, extra); }
  function readJson(id) {
    var node = document.getElementById(id);
    return node ? JSON.parse(node.textContent) : null;
  }

  function drawBusbw(chart, index) {
    var traces = chart.series.map(function (s, i) {
      return {
        type: "scatter", mode: "lines+markers", name: s.name, x: s.x, y: s.y,
        marker: { size: 5, color: PALETTE[i % PALETTE.length] },
        text: s.x_text, hovertemplate: "%{text}: %{y} GB/s<extra>%{fullData.name}</extra>",
      };
    });
    var maxX = Math.max.apply(null, [chart.large_bytes].concat(chart.series.map(function (s) {
      return s.x.length ? s.x[s.x.length - 1] : 0;
    })));
    if (chart.threshold !== null) {
      traces.push({
        type: "scatter", mode: "lines", name: "agreed floor " + chart.threshold_text + " (≥ " + chart.large_text + ")",
        x: [chart.large_bytes, maxX], y: [chart.threshold, chart.threshold],
        line: { color: "#c0262d", dash: "dash", width: 2 }, hoverinfo: "name",
      });
    }
    Plotly.newPlot("chart-busbw-" + index, traces, layout({
      // Small sizes sit near zero on the left: the legend goes there, clear of the curves.
      legend: { x: 0.01, y: 0.99, bgcolor: "rgba(255,255,255,0.85)", font: { size: 11 } },
      xaxis: { type: "log", title: { text: "message size (bytes)" }, exponentformat: "power" },
      yaxis: { title: { text: "busbw (GB/s)" }, rangemode: "tozero" },
    }), CONFIG);
  }

  function drawNodes(data) {
    var hasSteps = data.step_median.some(function (v) { return v !== null; });
    var traces = data.busbw.map(function (s, i) {
      return { type: "bar", name: s.name + " busbw (GB/s)", x: data.nodes, y: s.y, marker: { color: s.colour } };
    });
    var extra = { barmode: "group", yaxis: { title: { text: "large-message busbw (GB/s)" }, rangemode: "tozero" } };
    if (hasSteps && traces.length) {
      traces.push({
        type: "scatter", mode: "markers", name: "median step time (s)", x: data.nodes, y: data.step_median,
        yaxis: "y2", marker: { size: 11, symbol: "diamond", color: "#9a6700" },
      });
      extra.yaxis2 = { title: { text: "median step time (s)" }, overlaying: "y", side: "right", rangemode: "tozero" };
      extra.margin = { l: 64, r: 64, t: 8, b: 56 };
    } else if (hasSteps) {
      // No single-node nccl-tests runs: compare the nodes by their median step time alone.
      traces.push({ type: "bar", name: "median step time (s)", x: data.nodes, y: data.step_median, marker: { color: "#9a6700" } });
      extra.yaxis = { title: { text: "median step time (s)" }, rangemode: "tozero" };
    }
    Plotly.newPlot("chart-nodes", traces, layout(extra), CONFIG);
  }

  function drawSteps(data) {
    var labels = data.ranks.map(function (r, i) { return "rank " + r + (data.nodes[i] ? " · " + data.nodes[i] : ""); });
    var traces = [{
      type: "scatter", mode: "markers", name: "median (bar: min–max)", x: data.ranks, y: data.median,
      text: labels, marker: { color: "#2455c3", size: 7 },
      error_y: {
        type: "data", symmetric: false, color: "#9aa5b8",
        array: data.max.map(function (v, i) { return v - data.median[i]; }),
        arrayminus: data.median.map(function (v, i) { return v - data.min[i]; }),
      },
    }, {
      type: "scatter", mode: "markers", name: "p95", x: data.ranks, y: data.p95,
      marker: { symbol: "line-ew-open", size: 12, color: "#8250df" },
    }];
    if (data.run_median !== null) {
      var limit = data.run_median * (1 + data.tolerance_pct / 100);
      var xs = [Math.min.apply(null, data.ranks) - 0.5, Math.max.apply(null, data.ranks) + 0.5];
      traces.push({ type: "scatter", mode: "lines", name: "run median", x: xs, y: [data.run_median, data.run_median], line: { color: "#1a7f37" } });
      traces.push({ type: "scatter", mode: "lines", name: "straggler limit (+" + data.tolerance_pct + " %)", x: xs, y: [limit, limit], line: { color: "#c0262d", dash: "dash" } });
    }
    Plotly.newPlot("chart-steps", traces, layout({
      xaxis: { title: { text: "rank" }, dtick: data.ranks.length > 32 ? undefined : 1, zeroline: false },
      yaxis: { title: { text: "step time (s)" } },
    }), CONFIG);
  }

  function drawSubsets(m, index) {
    var thr = m.threshold;
    var text = m.z.map(function (row) { return row.map(function (v) { return v === null ? "" : v.toFixed(1); }); });
    var z = m.z.map(function (row) { return row.map(function (v) { return v === null || !thr ? v : v / thr; }); });
    Plotly.newPlot("chart-subsets-" + index, [{
      type: "heatmap", x: m.nodes, y: m.nodes, z: z, text: text, texttemplate: "%{text}",
      hovertemplate: "%{y} + %{x}: %{text} GB/s<extra></extra>",
      colorscale: thr ? [[0, "#c0262d"], [0.49, "#ffb3b3"], [0.5, "#dafbe1"], [1, "#1a7f37"]] : "Blues",
      zmin: thr ? 0 : undefined, zmax: thr ? 2 : undefined, showscale: false,
    }], layout({ height: 320, xaxis: { type: "category" }, yaxis: { type: "category", autorange: "reversed" } }), CONFIG);
  }

  function drawCharts() {
    var data = readJson("burnin-charts");
    if (!window.Plotly || !data) return;
    PALETTE = data.palette;
    data.busbw.forEach(drawBusbw);
    if (data.nodes && data.nodes.nodes.length && document.getElementById("chart-nodes")) drawNodes(data.nodes);
    if (data.steps && document.getElementById("chart-steps")) drawSteps(data.steps);
    data.subsets.forEach(drawSubsets);
  }

  function updateRows(status) {
    status.evidence.forEach(function (e) {
      var row = document.getElementById("evidence-" + e.id);
      if (!row) return;
      var cell = row.querySelector("td.state .status");
      if (cell && !e.withdrawn) {
        cell.className = "status status-" + e.state;
        cell.textContent = e.state_label;
      }
      var kind = row.querySelector("td.kind");
      if (kind && e.kind && kind.textContent.trim() === "–") kind.textContent = e.kind;
      var err = row.querySelector(".state-error");
      if (err) err.textContent = e.error || "";
      var retry = row.querySelector("form.retry");
      if (retry) retry.hidden = e.state !== "error";
    });
  }

  function poll(url, initial) {
    if (!initial.busy) return;
    var timer = window.setInterval(function () {
      fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (status) {
          if (!status) return;
          updateRows(status);
          if (!status.busy) {
            window.clearInterval(timer);
            // Everything settled: render the checks, verdict and charts for the new evidence.
            window.location.reload();
          }
        })
        .catch(function () { /* a missed poll is retried on the next tick */ });
    }, 1000);
  }

  document.addEventListener("DOMContentLoaded", function () {
    drawCharts();
    var script = document.getElementById("burnin-script");
    var status = readJson("burnin-status");
    if (script && status) poll(script.dataset.statusUrl, status);
  });
})();
