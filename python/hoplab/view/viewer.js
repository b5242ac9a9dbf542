/* hoplab view: draws a recorded run (docs/view.md). Plain JavaScript and
 * SVG, no library. The data is the run's recording, in the page's
 * <script id="hoplab-data"> element; window.hoplabViewer exposes the state
 * and the cursor to tests and scripts. */
(function () {
  'use strict';
  const D = JSON.parse(document.getElementById('hoplab-data').textContent);
  const R = D.recording;
  const T = R.times_s;
  const N = R.has_radio.length;
  const F = R.flow_ends.length;
  const END = Math.round(R.duration_s * 1e3) / 1e3;
  const SVGNS = 'http://www.w3.org/2000/svg';
  const FLOW_COLOURS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#17becf',
    '#bcbd22', '#7f7f7f'];
  const KIND = ['RTS', 'CTS', 'DATA', 'ACK'];
  const KIND_COLOURS = ['#888', '#888', '#1e78dc', '#2ca02c'];
  const MAC_STATES = ['idle', 'packet in service', 'transmitting'];
  const MAC_COLOURS = ['#e8e8e8', '#ffb347', '#d62728'];

  function flowColour(f) { return FLOW_COLOURS[f % FLOW_COLOURS.length]; }
  function el(tag, attrs, parent) {
    const e = document.createElementNS(SVGNS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  function fmt(x, digits) { return x === null || x === undefined ? '-' : Number(x).toFixed(digits); }
  /** The last index i with a[i] <= x (-1 if none); a ascending. */
  function lastAtOrBefore(a, x) {
    let lo = 0, hi = a.length - 1, best = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (a[mid] <= x) { best = mid; lo = mid + 1; } else { hi = mid - 1; }
    }
    return best;
  }
  /** The sample whose interval holds t: the first with T[k] >= t. */
  function windowSample(t) {
    const k = lastAtOrBefore(T, t - 1e-9) + 1;
    return Math.min(Math.max(k, 0), T.length - 1);
  }

  // ---- Derived data --------------------------------------------------------
  const routes = Array.from({ length: F }, () => []);
  for (const c of R.routes) routes[c.flow].push(c);
  const routeTimes = routes.map((list) => list.map((c) => c.time_s));
  const frameTimes = R.frames.map((f) => f[0] / 1e6);
  const stalls = D.stalls || [];

  /** Node quantities: name -> {label, kind: 'window'|'instant'|'category', get(k) -> array}. */
  const QUANTITIES = {
    queue_packets: { label: 'queue occupancy (packets)', kind: 'instant', rows: R.nodes.queue_packets },
    mac_state: { label: 'MAC state', kind: 'category', rows: R.nodes.mac_state },
    tx_permille: { label: 'MAC busy transmitting (‰ of interval)', kind: 'window', rows: R.nodes.tx_permille },
    drops: { label: 'drops, every cause (per interval)', kind: 'window', rows: R.nodes.drops },
    rx_errors: { label: 'frames received in error (per interval)', kind: 'window', rows: R.nodes.rx_errors },
    frames_sent: { label: 'frames sent (per interval)', kind: 'window', rows: R.nodes.frames_sent },
  };
  // The hop-by-hop control's counters, named and labelled by the control
  // (none counted anything: no control ran, and its quantities stay hidden).
  const hopCounters = R.nodes.hop_control.filter((c) => c.per_interval.some((row) => row.some((v) => v > 0)));
  for (const c of hopCounters) {
    QUANTITIES[c.key] = { label: c.label + ' (per interval)', kind: 'window', rows: c.per_interval };
  }
  if (hopCounters.length > 0) {
    QUANTITIES.congested_permille = { label: 'congested (‰ of interval)', kind: 'window', rows: R.nodes.congested_permille };
  }
  const causesSeen = new Set(R.nodes.drops_by_cause.map((d) => d[2]));
  for (const c of Array.from(causesSeen).sort((a, b) => a - b)) {
    const rows = T.map(() => new Array(N).fill(0));
    for (const d of R.nodes.drops_by_cause) if (d[2] === c) rows[d[0]][d[1]] += d[3];
    QUANTITIES['drops_' + R.drop_causes[c]] = { label: 'drops: ' + R.drop_causes[c] + ' (per interval)', kind: 'window', rows };
  }
  for (const q of Object.values(QUANTITIES)) {
    q.max = Math.max(1, ...q.rows.map((row) => Math.max(0, ...row)));
  }

  // ---- State ---------------------------------------------------------------
  let time = 0;
  let playing = false;
  let speed = 1;
  let quantity = 'queue_packets';
  let hovered = null;

  function positionsAt(t) {
    const P = R.positions_dm;
    if (!R.mobile || P.length === 1) return fromDm(P[0]);
    const k = Math.max(0, lastAtOrBefore(T, t));
    if (k >= T.length - 1) return fromDm(P[T.length - 1]);
    const a = (t - T[k]) / (T[k + 1] - T[k]);
    const out = [];
    for (let i = 0; i < N; i++) {
      const x = P[k][2 * i] + a * (P[k + 1][2 * i] - P[k][2 * i]);
      const y = P[k][2 * i + 1] + a * (P[k + 1][2 * i + 1] - P[k][2 * i + 1]);
      out.push([x / 10, y / 10]);
    }
    return out;
  }
  function fromDm(row) {
    const out = [];
    for (let i = 0; i < N; i++) out.push([row[2 * i] / 10, row[2 * i + 1] / 10]);
    return out;
  }
  /** A flow's route at t: {route, state: 'up'|'broken'|'none', since_s}. A
   * lost route is given as the last one the flow had, marked broken. */
  function routeAt(f, t) {
    const k = lastAtOrBefore(routeTimes[f], t);
    if (k < 0) return { route: [], state: 'none', since_s: null };
    const c = routes[f][k];
    if (c.route.length) return { route: c.route, state: 'up', since_s: c.time_s };
    for (let j = k - 1; j >= 0; j--) {
      if (routes[f][j].route.length) return { route: routes[f][j].route, state: 'broken', since_s: c.time_s };
    }
    return { route: [], state: 'none', since_s: null };
  }
  /** Whether each flow's ends are connected at t in the graph of nodes
   * within decoding range of each other (ground truth from positions, not
   * what routing knows); null for networks of more than 600 nodes. */
  function endsConnected(pos) {
    if (N > 600) return R.flow_ends.map(() => null);
    const r2 = R.tx_range_m * R.tx_range_m;
    const adj = Array.from({ length: N }, () => []);
    for (let i = 0; i < N; i++) {
      if (!R.has_radio[i]) continue;
      for (let j = i + 1; j < N; j++) {
        const dx = pos[i][0] - pos[j][0], dy = pos[i][1] - pos[j][1];
        if (R.has_radio[j] && dx * dx + dy * dy <= r2) { adj[i].push(j); adj[j].push(i); }
      }
    }
    for (const [a, b] of R.wired_links) { adj[a].push(b); adj[b].push(a); }
    return R.flow_ends.map(([src, dst]) => {
      const seen = new Uint8Array(N), stack = [src];
      seen[src] = 1;
      while (stack.length) {
        const x = stack.pop();
        if (x === dst) return true;
        for (const y of adj[x]) if (!seen[y]) { seen[y] = 1; stack.push(y); }
      }
      return false;
    });
  }
  function nodeValues(t) {
    const q = QUANTITIES[quantity];
    const k = q.kind === 'window' ? windowSample(t) : Math.max(0, lastAtOrBefore(T, t));
    return q.rows[k];
  }

  // ---- Header --------------------------------------------------------------
  document.getElementById('run-name').textContent = D.meta.name;
  document.getElementById('run-meta').textContent = D.meta.summary;
  document.getElementById('run-bounds').textContent = D.meta.bounds;

  // ---- Map -----------------------------------------------------------------
  const map = document.getElementById('map');
  const tooltip = document.getElementById('tooltip');
  let geo = null; // {scale, ox, oy}
  const layers = {};
  const nodeEls = [];
  const extent = (function () {
    let xs = [], ys = [];
    for (const row of R.positions_dm) for (let i = 0; i < N; i++) { xs.push(row[2 * i] / 10); ys.push(row[2 * i + 1] / 10); }
    let x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
    if (R.area_m) { x0 = Math.min(x0, 0); y0 = Math.min(y0, 0); x1 = Math.max(x1, R.area_m[0]); y1 = Math.max(y1, R.area_m[1]); }
    const pad = Math.max(20, 0.04 * Math.max(x1 - x0, y1 - y0, 1));
    return { x0: x0 - pad, y0: y0 - pad, x1: x1 + pad, y1: y1 + pad };
  })();

  function layoutMap() {
    const w = map.clientWidth || 800, h = map.clientHeight || 500;
    map.setAttribute('viewBox', '0 0 ' + w + ' ' + h);
    const scale = Math.min(w / (extent.x1 - extent.x0), h / (extent.y1 - extent.y0));
    geo = { scale, ox: (w - scale * (extent.x1 - extent.x0)) / 2, oy: (h - scale * (extent.y1 - extent.y0)) / 2, w, h };
    clear(map);
    for (const name of ['area', 'ranges', 'wired', 'routes', 'frames', 'nodes', 'scale']) layers[name] = el('g', { id: 'layer-' + name }, map);
    if (R.area_m) {
      const [ax, ay] = px([0, 0]), [bx, by] = px(R.area_m);
      el('rect', { x: ax, y: ay, width: bx - ax, height: by - ay, fill: 'none', stroke: '#ddd' }, layers.area);
    }
    drawScaleBar();
    nodeEls.length = 0;
    const r = Math.max(4, Math.min(11, 0.018 * Math.min(w, h)));
    for (let i = 0; i < N; i++) {
      const g = el('g', { class: 'node', 'data-id': i }, layers.nodes);
      el('circle', { r, fill: '#eee' }, g);
      const label = el('text', { 'font-size': Math.max(8, r * 1.1), 'text-anchor': 'middle', dy: '0.35em' }, g);
      label.textContent = String(i);
      g.addEventListener('mouseenter', () => { hovered = i; render(); });
      g.addEventListener('mouseleave', () => { hovered = null; render(); });
      nodeEls.push(g);
    }
    for (const [f] of R.flow_ends) nodeEls[f].classList.add('src');
  }
  function px(p) { return [geo.ox + geo.scale * (p[0] - extent.x0), geo.oy + geo.scale * (p[1] - extent.y0)]; }
  function drawScaleBar() {
    const target = (geo.w * 0.2) / geo.scale;
    const step = Math.pow(10, Math.floor(Math.log10(target)));
    const metres = [1, 2, 5, 10].map((m) => m * step).filter((m) => m <= target).pop();
    const len = metres * geo.scale, x = 12, y = geo.h - 14;
    el('line', { x1: x, y1: y, x2: x + len, y2: y, stroke: '#333', 'stroke-width': 2 }, layers.scale);
    const t = el('text', { x: x, y: y - 5, 'font-size': 11, fill: '#333' }, layers.scale);
    t.textContent = metres + ' m (to scale)';
  }

  function renderMap(t) {
    const pos = positionsAt(t);
    const pts = pos.map(px);
    const values = nodeValues(t);
    const q = QUANTITIES[quantity];
    for (let i = 0; i < N; i++) {
      nodeEls[i].setAttribute('transform', 'translate(' + pts[i][0].toFixed(1) + ',' + pts[i][1].toFixed(1) + ')');
      nodeEls[i].firstChild.setAttribute('fill', colourFor(q, values[i]));
      nodeEls[i].style.opacity = R.has_radio[i] ? 1 : 0.6;
    }
    clear(layers.wired);
    for (const [a, b] of R.wired_links) el('line', { class: 'wired', x1: pts[a][0], y1: pts[a][1], x2: pts[b][0], y2: pts[b][1] }, layers.wired);
    clear(layers.routes);
    if (document.getElementById('show-routes').checked) {
      for (let f = 0; f < F; f++) {
        const r = routeAt(f, t);
        if (!r.route.length) continue;
        const off = (f - (F - 1) / 2) * 1.5;
        const d = r.route.map((n, j) => (j ? 'L' : 'M') + (pts[n][0] + off).toFixed(1) + ',' + (pts[n][1] + off).toFixed(1)).join('');
        el('path', { class: 'route' + (r.state === 'broken' ? ' broken' : ''), d, stroke: flowColour(f), 'stroke-width': 3 }, layers.routes);
      }
    }
    clear(layers.frames);
    if (document.getElementById('show-frames').checked) drawFrames(t, pts);
    clear(layers.ranges);
    tooltip.hidden = hovered === null;
    if (hovered !== null) showNode(hovered, pos, pts, values);
  }
  function drawFrames(t, pts) {
    const from = lastAtOrBefore(frameTimes, t - R.interval_s) + 1;
    const to = lastAtOrBefore(frameTimes, t);
    for (let j = from; j <= to; j++) {
      const [, what, node, kind, peer] = R.frames[j];
      const age = 1 - (t - frameTimes[j]) / R.interval_s;
      const p = pts[node];
      if (what === 0 && peer >= 0) {
        el('line', { class: 'frame', x1: p[0], y1: p[1], x2: pts[peer][0], y2: pts[peer][1], stroke: KIND_COLOURS[kind],
          'stroke-width': kind === 2 ? 2.5 : 1.2, opacity: (0.25 + 0.75 * age).toFixed(2) }, layers.frames);
      } else if (what === 0) {
        el('circle', { class: 'frame', cx: p[0], cy: p[1], r: 16, fill: 'none', stroke: '#9467bd', opacity: (0.25 + 0.75 * age).toFixed(2) }, layers.frames);
      } else {
        const s = 6;
        el('path', { class: 'lost', d: 'M' + (p[0] - s) + ',' + (p[1] - s) + 'L' + (p[0] + s) + ',' + (p[1] + s) + 'M' + (p[0] - s) + ',' + (p[1] + s) + 'L' + (p[0] + s) + ',' + (p[1] - s),
          opacity: (0.3 + 0.7 * age).toFixed(2) }, layers.frames);
      }
    }
  }
  function showNode(i, pos, pts, values) {
    const p = pts[i];
    if (R.has_radio[i]) {
      el('circle', { class: 'range-cs', cx: p[0], cy: p[1], r: R.cs_range_m * geo.scale }, layers.ranges);
      el('circle', { class: 'range-tx', cx: p[0], cy: p[1], r: R.tx_range_m * geo.scale }, layers.ranges);
    }
    const k = Math.max(0, lastAtOrBefore(T, time)), kw = windowSample(time);
    const lines = ['node ' + i + '  (' + fmt(pos[i][0], 1) + ', ' + fmt(pos[i][1], 1) + ') m',
      'queue ' + R.nodes.queue_packets[k][i] + ' packets, MAC ' + MAC_STATES[R.nodes.mac_state[k][i]],
      'interval to ' + T[kw] + ' s: ' + R.nodes.frames_sent[kw][i] + ' frames sent, ' + R.nodes.rx_errors[kw][i] + ' received in error, ' + R.nodes.drops[kw][i] + ' drops',
      QUANTITIES[quantity].label + ': ' + values[i],
      'ranges: decoding ' + R.tx_range_m + ' m, carrier sense ' + R.cs_range_m + ' m'];
    tooltip.textContent = lines.join('\n');
    tooltip.style.left = Math.min(p[0] + 14, geo.w - 260) + 'px';
    tooltip.style.top = (p[1] + 14) + 'px';
  }
  function colourFor(q, v) {
    if (q.kind === 'category') return MAC_COLOURS[v] || '#eee';
    const a = Math.min(1, v / q.max);
    // White to dark red.
    const r = Math.round(255 - 80 * a), g = Math.round(255 - 225 * a), b = Math.round(255 - 225 * a);
    return 'rgb(' + r + ',' + g + ',' + b + ')';
  }
  function renderLegend() {
    const legend = document.getElementById('legend');
    const q = QUANTITIES[quantity];
    let html = '';
    if (q.kind === 'category') {
      html += MAC_STATES.map((s, i) => '<span><span class="swatch" style="background:' + MAC_COLOURS[i] + '"></span> ' + s + '</span>').join('');
    } else {
      html += '<span>' + q.label + ': 0 <span class="bar" style="background:linear-gradient(90deg,#fff,rgb(175,30,30))"></span> ' + q.max + '</span>';
    }
    html += '<span>frames: <span style="color:' + KIND_COLOURS[2] + '">DATA</span>, <span style="color:' + KIND_COLOURS[3] + '">ACK</span>, <span style="color:#888">RTS/CTS</span>, <span style="color:#9467bd">broadcast</span>, <span style="color:#d00">&#10005; received in error</span></span>';
    html += '<span>routes: solid in use, dashed lost (the last one known)</span><span>hover a node for its ranges</span>';
    legend.innerHTML = html;
  }

  // ---- Flow table ----------------------------------------------------------
  const flowRows = [];
  (function () {
    const body = document.querySelector('#flow-table tbody');
    for (let f = 0; f < F; f++) {
      const tr = document.createElement('tr');
      tr.innerHTML = '<td><span class="swatch" style="background:' + flowColour(f) + '"></span></td><td>' + D.flows[f].label + '</td><td class="route"></td><td class="state"></td>';
      body.appendChild(tr);
      flowRows.push(tr);
    }
  })();
  function renderFlowTable(t) {
    const connected = endsConnected(positionsAt(t));
    for (let f = 0; f < F; f++) {
      const r = routeAt(f, t);
      flowRows[f].children[2].textContent = r.route.length ? r.route.join(' → ') : '(none)';
      let text = r.state === 'up' ? 'up since ' + r.since_s + ' s' : r.state === 'broken' ? 'lost at ' + r.since_s + ' s' : 'no route so far';
      if (r.state !== 'up' && connected[f] !== null) text += connected[f] ? ' (ends connected)' : ' (ends not connected: partitioned)';
      flowRows[f].children[3].textContent = text;
    }
  }

  // ---- Timeline ------------------------------------------------------------
  const timeline = document.getElementById('timeline');
  const TL = { left: 64, right: 10, lane: 18, top: 16 };
  let tlCursor = null;
  function tlX(t) { return TL.left + (t / END) * ((timeline.clientWidth || 600) - TL.left - TL.right); }
  function drawTimeline() {
    const w = timeline.clientWidth || 600;
    const h = TL.top + TL.lane * F + 18;
    timeline.setAttribute('viewBox', '0 0 ' + w + ' ' + h);
    timeline.style.height = h + 'px';
    clear(timeline);
    drawTimeAxis(timeline, w, h - 14, TL.left, w - TL.right);
    for (let f = 0; f < F; f++) {
      const y = TL.top + TL.lane * f;
      const label = el('text', { x: 4, y: y + 12, class: 'tick' }, timeline);
      label.textContent = 'flow ' + f;
      drawRouteBar(f, y);
      for (const s of stalls.filter((s) => s.flow === f)) {
        el('rect', { class: 'ev ev-stall', x: tlX(s.start_s), y: y + 2, width: Math.max(1, tlX(s.end_s) - tlX(s.start_s)), height: TL.lane - 6,
          fill: 'rgba(90,90,90,.35)', 'data-time': s.start_s }, timeline);
      }
    }
    for (const e of R.events) drawEvent(e);
    tlCursor = el('line', { class: 'cursor-line', y1: 0, y2: h - 14 }, timeline);
  }
  function drawRouteBar(f, y) {
    const list = routes[f];
    for (let j = 0; j < list.length; j++) {
      const t0 = list[j].time_s, t1 = j + 1 < list.length ? list[j + 1].time_s : END;
      el('rect', { x: tlX(t0), y: y + TL.lane - 6, width: Math.max(0.5, tlX(t1) - tlX(t0)), height: 3,
        fill: list[j].route.length ? '#5cb85c' : '#e06666' }, timeline);
    }
  }
  function drawEvent(e) {
    const x = tlX(e.time_s), y = TL.top + TL.lane * e.flow + 7;
    const title = e.kind.replace('_', ' ') + (e.count > 1 ? ' x' + e.count : '') + ' at ' + e.time_s + ' s (flow ' + e.flow + ')';
    let shape;
    if (e.kind === 'route_break') shape = el('path', { d: 'M' + (x - 4) + ',' + (y - 4) + 'L' + (x + 4) + ',' + (y - 4) + 'L' + x + ',' + (y + 3) + 'Z', fill: '#d62728' }, timeline);
    else if (e.kind === 'route_found') shape = el('path', { d: 'M' + (x - 4) + ',' + (y + 3) + 'L' + (x + 4) + ',' + (y + 3) + 'L' + x + ',' + (y - 4) + 'Z', fill: '#2ca02c' }, timeline);
    else if (e.kind === 'route_lost') shape = el('rect', { x: x - 1, y: y - 5, width: 2, height: 10, fill: '#000' }, timeline);
    else if (e.kind === 'discovery') shape = el('circle', { cx: x, cy: y, r: 2.5, fill: '#1f77b4' }, timeline);
    else shape = el('path', { d: 'M' + (x - 3) + ',' + (y - 3) + 'L' + (x + 3) + ',' + (y + 3) + 'M' + (x - 3) + ',' + (y + 3) + 'L' + (x + 3) + ',' + (y - 3), stroke: '#ff7f0e', 'stroke-width': 1.6 }, timeline);
    shape.setAttribute('class', 'ev ev-' + e.kind);
    shape.setAttribute('data-time', e.time_s);
    el('title', {}, shape).textContent = title;
  }
  function drawTimeAxis(svg, w, y, x0, x1) {
    el('line', { class: 'axis', x1: x0, y1: y, x2: x1, y2: y }, svg);
    const step = niceStep(END / 8);
    for (let t = 0; t <= END + 1e-9; t += step) {
      const x = x0 + (t / END) * (x1 - x0);
      el('line', { class: 'axis', x1: x, y1: y, x2: x, y2: y + 3 }, svg);
      const label = el('text', { x, y: y + 12, class: 'tick', 'text-anchor': 'middle' }, svg);
      label.textContent = +t.toFixed(3) + (t === 0 ? ' s' : '');
    }
  }
  function niceStep(raw) {
    const p = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1e-9))));
    return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) || raw;
  }
  timeline.addEventListener('click', (ev) => {
    const rect = timeline.getBoundingClientRect();
    const x = ((ev.clientX - rect.left) / rect.width) * (timeline.clientWidth || 600);
    seek(((x - TL.left) / ((timeline.clientWidth || 600) - TL.left - TL.right)) * END);
  });

  // ---- Plots ---------------------------------------------------------------
  const PLOTS = [
    { key: 'goodput_kbps', title: 'goodput (kbps, per interval; counted from warm-up as the report does)' },
    { key: 'window', title: 'congestion window (segments, TCP) / source rate (kbps, semi-TCP)' },
    { key: 'srtt_ms', title: 'smoothed RTT (ms)' },
    { key: 'delay_ms', title: 'end-to-end delay (ms, mean per interval)' },
  ];
  const plotEls = [];
  function plotSeries(key, f) {
    if (key === 'window') {
      const cw = R.flows.cwnd_segments.map((row) => row[f]);
      return cw.some((v) => v !== null) ? cw : R.flows.rate_kbps.map((row) => row[f]);
    }
    return R.flows[key].map((row) => row[f]);
  }
  function drawPlots() {
    const host = document.getElementById('plots');
    clear(host);
    plotEls.length = 0;
    // Every box first, so each is measured at its final width.
    const boxes = PLOTS.map((p) => {
      const box = document.createElement('div');
      box.className = 'plot';
      box.innerHTML = '<h3></h3><svg></svg><div class="readout"></div>';
      box.querySelector('h3').textContent = p.title;
      host.appendChild(box);
      return box;
    });
    PLOTS.forEach((p, b) => {
      const box = boxes[b];
      const svg = box.querySelector('svg');
      const w = svg.clientWidth || 480, h = svg.clientHeight || 170;
      svg.setAttribute('viewBox', '0 0 ' + w + ' ' + h);
      const area = { x0: 46, x1: w - 8, y0: 8, y1: h - 20 };
      const series = Array.from({ length: F }, (_, f) => plotSeries(p.key, f));
      const finite = series.flat().filter((v) => v !== null && isFinite(v));
      const ymax = Math.max(1e-9, ...finite);
      if (!finite.length) {
        el('text', { x: w / 2, y: h / 2, class: 'tick', 'text-anchor': 'middle' }, svg).textContent = 'no values in this run';
      }
      el('rect', { x: area.x0, y: area.y0, width: area.x1 - area.x0, height: area.y1 - area.y0, fill: 'none', class: 'axis' }, svg);
      for (const frac of finite.length ? [0, 0.5, 1] : []) {
        const y = area.y1 - frac * (area.y1 - area.y0);
        el('line', { class: 'grid', x1: area.x0, x2: area.x1, y1: y, y2: y }, svg);
        el('text', { x: area.x0 - 4, y: y + 3, class: 'tick', 'text-anchor': 'end' }, svg).textContent = +(frac * ymax).toPrecision(3);
      }
      drawTimeAxis(svg, w, area.y1, area.x0, area.x1);
      series.forEach((values, f) => {
        let d = '';
        values.forEach((v, k) => {
          if (v === null || !isFinite(v)) return;
          const x = area.x0 + (T[k] / END) * (area.x1 - area.x0), y = area.y1 - (v / ymax) * (area.y1 - area.y0);
          d += (d && values[k - 1] !== null ? 'L' : 'M') + x.toFixed(1) + ',' + y.toFixed(1);
        });
        if (d) el('path', { d, fill: 'none', stroke: flowColour(f), 'stroke-width': 1.3, class: 'series', 'data-flow': f }, svg);
      });
      const cursor = el('line', { class: 'cursor-line', y1: area.y0, y2: area.y1 }, svg);
      svg.addEventListener('click', (ev) => {
        const rect = svg.getBoundingClientRect();
        const x = ((ev.clientX - rect.left) / rect.width) * w;
        seek(((x - area.x0) / (area.x1 - area.x0)) * END);
      });
      plotEls.push({ p, svg, cursor, area, series, readout: box.querySelector('.readout') });
    });
  }
  function renderPlots(t) {
    for (const pe of plotEls) {
      const x = pe.area.x0 + (t / END) * (pe.area.x1 - pe.area.x0);
      pe.cursor.setAttribute('x1', x);
      pe.cursor.setAttribute('x2', x);
      const k = pe.p.key === 'goodput_kbps' || pe.p.key === 'delay_ms' ? windowSample(t) : Math.max(0, lastAtOrBefore(T, t));
      pe.readout.innerHTML = pe.series.map((s, f) => '<span style="color:' + flowColour(f) + '">' + f + ': ' + fmt(s[k], 1) + '</span>').join(' · ');
    }
  }

  // ---- Cursor, playback ----------------------------------------------------
  const slider = document.getElementById('cursor');
  slider.max = END;
  slider.addEventListener('input', () => seek(Number(slider.value)));
  const speedSelect = document.getElementById('speed');
  for (const s of [0.1, 0.25, 0.5, 1, 2, 5, 10, 20]) {
    const o = document.createElement('option');
    o.value = s; o.textContent = s + ' x';
    if (s === 1) o.selected = true;
    speedSelect.appendChild(o);
  }
  speedSelect.addEventListener('change', () => { speed = Number(speedSelect.value); });
  const quantitySelect = document.getElementById('quantity');
  for (const [name, q] of Object.entries(QUANTITIES)) {
    const o = document.createElement('option');
    o.value = name; o.textContent = q.label;
    quantitySelect.appendChild(o);
  }
  quantitySelect.addEventListener('change', () => setQuantity(quantitySelect.value));
  const playButton = document.getElementById('play');
  playButton.addEventListener('click', () => (playing ? pause() : play()));
  document.getElementById('show-frames').addEventListener('change', render);
  document.getElementById('show-routes').addEventListener('change', render);
  document.addEventListener('keydown', (ev) => {
    if (ev.key === ' ' && ev.target === document.body) { ev.preventDefault(); playing ? pause() : play(); }
  });
  let lastTick = null;
  function tick(now) {
    if (!playing) return;
    if (lastTick !== null) {
      const next = time + ((now - lastTick) / 1000) * speed;
      if (next >= END) { seek(END); pause(); return; }
      seek(next);
    }
    lastTick = now;
    requestAnimationFrame(tick);
  }
  function play() {
    if (time >= END) seek(0);
    playing = true; lastTick = null;
    playButton.innerHTML = '&#10074;&#10074; pause';
    requestAnimationFrame(tick);
  }
  function pause() { playing = false; playButton.innerHTML = '&#9654; play'; }
  function setQuantity(name) {
    if (!(name in QUANTITIES)) throw new Error('unknown quantity ' + name + '; known: ' + Object.keys(QUANTITIES).join(', '));
    quantity = name; quantitySelect.value = name; renderLegend(); render();
  }
  function seek(t) {
    const x = Number(t);
    if (!isFinite(x)) throw new Error('seek: a time in seconds, got ' + t);
    time = Math.min(Math.max(x, 0), END);
    render();
    return state();
  }
  function render() {
    slider.value = time;
    document.getElementById('clock').textContent = time.toFixed(3) + ' s of ' + END + ' s';
    renderMap(time);
    renderFlowTable(time);
    if (tlCursor) { const x = tlX(time); tlCursor.setAttribute('x1', x); tlCursor.setAttribute('x2', x); }
    renderPlots(time);
  }
  function state() {
    const pos = positionsAt(time);
    const values = nodeValues(time);
    const connected = endsConnected(pos);
    return {
      time_s: time,
      playing, speed, quantity,
      nodes: pos.map((p, i) => ({ id: i, x_m: Math.round(p[0] * 10) / 10, y_m: Math.round(p[1] * 10) / 10, value: values[i] })),
      flows: D.flows.map((fl, f) => {
        const r = routeAt(f, time);
        return { id: fl.id, src: fl.src, dst: fl.dst, route: r.route.slice(), route_state: r.state, since_s: r.since_s,
          ends_connected: connected[f] };
      }),
      events: R.events.length,
    };
  }

  window.hoplabViewer = { state, seek, play, pause, setQuantity, quantities: () => Object.keys(QUANTITIES),
    setSpeed: (s) => { speed = Number(s); speedSelect.value = String(s); } };
  function layoutAll() { layoutMap(); drawTimeline(); drawPlots(); render(); }
  window.addEventListener('resize', layoutAll);
  renderLegend();
  layoutAll();
  seek(Number(D.meta.start_s || 0));
})();
