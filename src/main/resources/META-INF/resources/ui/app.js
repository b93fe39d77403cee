// The warmpool dashboard: reads the API with the session cookie (UiSession), live through
// Server-Sent Events. Three pages, one script: /ui (pools, processors, recent jobs),
// /ui/jobs/{id} (a job's live log and reports), /ui/sweeps/{id} (objective by trial).
(function () {
  'use strict';

  const role = document.body.dataset.role;
  const admin = role === 'admin';
  const main = document.getElementById('main');
  const STATES = ['starting', 'idle', 'busy', 'draining'];
  const COLORS = { starting: '#e9a23b', idle: '#3f9d5a', busy: '#2f6fd6', draining: '#8d8d8d', queued: '#d9493b' };

  // ---- small helpers -------------------------------------------------------------------------

  /** An element: el('td', {class: 'x', text: 'y', dataset: {k: v}, onclick: f}, child, ...). */
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null) continue;
      if (k === 'text') e.textContent = v;
      else if (k === 'dataset') Object.assign(e.dataset, v);
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v);
    }
    for (const c of children) if (c !== null && c !== undefined) e.append(c);
    return e;
  }

  /** Calls the API; a refusal becomes an Error with the problem's detail, which the banner shows. */
  async function api(method, path, body) {
    const init = { method, credentials: 'same-origin', headers: { 'Accept': 'application/json', 'X-Warmpool-UI': '1' } };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const r = await fetch(path, init);
    if (r.status === 401) {
      location.reload(); // the session ended: the page shows its login form
      throw new Error('Signed out.');
    }
    const text = await r.text();
    const data = text ? JSON.parse(text) : null;
    if (!r.ok) throw new Error((data && (data.detail || data.title)) || (method + ' ' + path + ': ' + r.status));
    return data;
  }

  const banner = document.getElementById('problem');
  function problem(message) {
    banner.textContent = message || '';
    banner.className = message ? 'problem' : 'hidden';
  }

  const liveBadge = document.getElementById('live');
  function live(on, text) {
    liveBadge.className = 'live ' + (on ? 'on' : 'off');
    liveBadge.textContent = text || (on ? 'live' : 'reconnecting');
  }

  function seconds(from, to) {
    if (!from) return null;
    const a = Date.parse(from);
    const b = to ? Date.parse(to) : Date.now();
    return Math.max(0, (b - a) / 1000);
  }

  function fmt(s) {
    if (s === null || s === undefined) return '';
    if (s < 1) return (s * 1000).toFixed(0) + ' ms';
    if (s < 120) return s.toFixed(1) + ' s';
    if (s < 7200) return (s / 60).toFixed(1) + ' min';
    return (s / 3600).toFixed(1) + ' h';
  }

  function badge(state) {
    return el('span', { class: 'state s-' + String(state || '').toLowerCase(), text: state || '' });
  }

  /** A job's wait in the queue and run time, as far as they go. */
  function waitOf(j) {
    return seconds(j.submittedAt, j.startedAt || (j.ended ? j.finishedAt : null));
  }
  function runOf(j) {
    return j.startedAt ? seconds(j.startedAt, j.ended ? j.finishedAt : null) : null;
  }

  /**
   * Follows a stream of Server-Sent Events; handlers by event name. Closed on 'end'. A hidden tab
   * holds no stream (it costs the manager nothing, and a Knative manager can scale to zero while a
   * forgotten tab stays open); shown again, it goes on after the last event it had.
   */
  function follow(path, handlers) {
    let es = null;
    let lastId = null;
    let ended = false;
    const open = () => {
      const url = lastId ? path + (path.includes('?') ? '&' : '?') + 'after=' + encodeURIComponent(lastId) : path;
      const source = new EventSource(url, { withCredentials: true });
      es = source;
      source.onopen = () => { live(true); problem(''); };
      source.onerror = () => {
        if (source.readyState === EventSource.CLOSED) return;
        live(false);
        // a feed refused (the session ended) errors as a dropped one does: ask the API which it is
        fetch('/pools', { credentials: 'same-origin' }).then(r => { if (r.status === 401) location.reload(); }, () => {});
      };
      for (const [name, f] of Object.entries(handlers)) {
        source.addEventListener(name, e => {
          if (e.lastEventId) lastId = e.lastEventId;
          try { f(e.data, e); } catch (err) { problem(err.message); }
          if (name === 'end') { ended = true; source.close(); live(true, 'ended'); }
        });
      }
    };
    document.addEventListener('visibilitychange', () => {
      if (document.hidden && es) {
        es.close();
        es = null;
        live(false, 'paused');
      } else if (!document.hidden && !es && !ended) {
        open();
      }
    });
    open();
  }

  function chart(canvas, config) {
    if (typeof Chart === 'undefined') {
      problem('The chart library did not load: the figures are in the tables.');
      return null;
    }
    return new Chart(canvas, config);
  }

  async function act(button, f) {
    button.disabled = true;
    try { await f(); problem(''); } catch (err) { problem(err.message); } finally { button.disabled = false; }
  }

  // ---- /ui: pools, processors, recent jobs ---------------------------------------------------

  function overview() {
    document.title = 'warmpool';
    const canvas = el('canvas', { id: 'pool-chart', 'aria-label': 'processors by state and queued jobs, per pool' });
    const chartBox = el('div', { class: 'chart bars' }, canvas);
    const pools = el('div', { id: 'pools' });
    const jobs = el('tbody');
    main.append(
      el('section', {}, el('h2', { text: 'Pools' }), chartBox, pools),
      el('section', {}, el('h2', { text: 'Recent jobs' }),
        el('table', { id: 'jobs' },
          el('thead', {}, el('tr', {}, ...['Job', 'Type', 'State', 'By', 'Wait', 'Run', ''].map(h => el('th', { text: h })))),
          jobs)));
    let bars = null;
    follow('/ui/events', {
      state: data => {
        const s = JSON.parse(data);
        bars = drawBars(bars, canvas, chartBox, s.pools);
        drawPools(pools, s.pools);
        drawJobs(jobs, s.jobs);
      },
      problem: data => problem('Reading the pools failed: ' + data)
    });
  }

  function drawBars(bars, canvas, box, list) {
    box.style.height = (70 + 44 * Math.max(1, list.length)) + 'px';
    const labels = list.map(p => p.type);
    const series = STATES.map(s => list.map(p => p.status[s]));
    const queued = list.map(p => p.status.queued);
    if (!bars) {
      bars = chart(canvas, {
        type: 'bar',
        data: {
          labels,
          datasets: STATES.map((s, i) => ({ label: s, data: series[i], backgroundColor: COLORS[s], stack: 'processors' }))
            .concat([{ label: 'queued jobs', data: queued, backgroundColor: COLORS.queued, stack: 'queue' }])
        },
        options: {
          indexAxis: 'y', animation: false, responsive: true, maintainAspectRatio: false,
          scales: { x: { stacked: true, beginAtZero: true, ticks: { precision: 0 } }, y: { stacked: true } },
          plugins: { legend: { position: 'bottom' } }
        }
      });
      return bars;
    }
    bars.data.labels = labels;
    STATES.forEach((s, i) => { bars.data.datasets[i].data = series[i]; });
    bars.data.datasets[STATES.length].data = queued;
    bars.update('none');
    return bars;
  }

  function drawPools(box, list) {
    box.replaceChildren(...list.map(p => {
      const counts = el('p', { class: 'counts' },
        ...STATES.map(s => el('span', { class: 'count c-' + s }, s + ' ', el('b', { dataset: { count: s }, text: String(p.status[s]) }))),
        el('span', { class: 'count c-queued' }, 'queued ', el('b', { dataset: { count: 'queued' }, text: String(p.status.queued) })));
      // warmStarts and coldStarts count jobs (found an idle processor, or waited for one), not processor starts
      const warmth = p.warmth ? el('span', { class: 'muted', dataset: { warmth: '' },
        title: 'jobs that found an idle processor at once / jobs that waited for one (busy or still starting); idle processor time',
        text: ' warmth ' + p.warmth.policy + ': ' + p.warmth.warmStarts + ' jobs met a warm processor, ' + p.warmth.coldStarts
          + ' waited for one, ' + fmt(p.warmth.idleProcessorSeconds) + ' idle' }) : null;
      // the feed sends a card's processors, busy first, and how many more there are (UiFeed.Card)
      const rows = (p.processors || []).map(x => el('tr', { dataset: { processor: x.id } },
        el('td', { class: 'mono', text: x.id }), el('td', {}, badge(x.state)),
        el('td', {}, x.job ? el('a', { href: '/ui/jobs/' + encodeURIComponent(x.job), class: 'mono', text: x.job }) : '')));
      const table = rows.length
        ? el('table', { class: 'procs' }, el('thead', {}, el('tr', {}, ...['Processor', 'State', 'Running'].map(h => el('th', { text: h })))),
          el('tbody', {}, ...rows))
        : el('p', { class: 'muted', text: 'No processors now.' });
      const more = p.more > 0 ? el('p', { class: 'muted rest', text: 'and ' + p.more + ' more (GET /pools/' + p.type + ')' }) : null;
      // why its processors cannot start, until one started after it is up (PoolView.startError)
      const startError = p.startError ? el('p', { class: 'error', dataset: { startError: '' },
        text: 'Processors cannot start: ' + p.startError.reason + ' (last at ' + p.startError.at + ')' }) : null;
      return el('article', { class: 'pool', dataset: { pool: p.type } },
        el('h3', {}, p.type + ' ', badge(p.state), warmth),
        startError, counts, admin ? poolButtons(p) : null, table, more, tenantsTable(p));
    }));
    if (!list.length) box.append(el('p', { class: 'muted', text: 'No pools yet: PUT /pools/{type} makes one.' }));
  }

  // what a tenant's sweeps in the pool cost (docs/sweeps.md), on its usage cell
  function sweepCost(s) {
    if (!s || (!s.busySeconds && !s.coldStarts && !s.idleSeconds)) return undefined;
    return 'its sweeps here: ' + fmt(s.busySeconds) + ' of trials, ' + s.coldStarts + ' cold start' + (s.coldStarts === 1 ? '' : 's')
      + ', ' + fmt(s.idleSeconds || 0) + ' held idle';
  }

  // fair share: each tenant's weight, cap, running and queued jobs, decayed usage and share (docs/fair-share.md)
  function tenantsTable(p) {
    const list = p.tenants || [];
    if (!list.length) return null;
    const rows = list.map(t => el('tr', { dataset: { tenant: t.tenant } },
      el('td', { class: 'mono', text: t.tenant }), el('td', { text: String(t.weight) }),
      el('td', { text: t.maxRunning == null ? '' : String(t.maxRunning) }),
      el('td', { dataset: { col: 'running' }, text: String(t.running) }), el('td', { dataset: { col: 'queued' }, text: String(t.queued) }),
      el('td', { text: fmt(t.usageSeconds), title: sweepCost(t.sweeps) }), el('td', { text: t.share.toFixed(3) })));
    const heads = [['Tenant'], ['Weight'], ['Cap', 'maxRunning: at most this many running'], ['Running'], ['Queued'], ['Usage'], ['Share']];
    // in a box of the card's width: a third of the page at 1280 px holds the seven columns, a longer name scrolls
    return el('div', { class: 'fit' }, el('table', { class: 'procs tenants' },
      el('thead', {}, el('tr', {}, ...heads.map(([h, title]) => el('th', { text: h, title })))),
      el('tbody', {}, ...rows)));
  }

  function poolButtons(p) {
    const spec = p.spec;
    const setMinIdle = n => b => act(b.target, () => api('PUT', '/pools/' + encodeURIComponent(p.type), Object.assign({}, spec, { minIdle: n })));
    const box = el('p', { class: 'buttons' }, 'min idle ' + spec.minIdle + ' ');
    if (p.state === 'ACTIVE') {
      box.append(
        el('button', { class: 'less', title: 'one fewer warm processor', onclick: setMinIdle(Math.max(0, spec.minIdle - 1)) }, '−'),
        el('button', { class: 'more', title: 'one more warm processor', onclick: setMinIdle(Math.min(spec.maxSize, spec.minIdle + 1)) }, '+'),
        el('button', {
          class: 'drain', onclick: e => {
            if (confirm('Drain pool ' + p.type + '? Queued jobs are cancelled, processors retire as they come free.')) {
              act(e.target, () => api('DELETE', '/pools/' + encodeURIComponent(p.type)));
            }
          }
        }, 'Drain'));
    }
    return box;
  }

  function cancelButton(id, label) {
    return el('button', { class: 'cancel', dataset: { cancel: id }, onclick: e => act(e.target, () => api('DELETE', '/jobs/' + encodeURIComponent(id))) },
      label || 'Cancel');
  }

  function drawJobs(tbody, list) {
    tbody.replaceChildren(...list.map(j => el('tr', { dataset: { job: j.id } },
      el('td', {}, el('a', { href: '/ui/jobs/' + encodeURIComponent(j.id), class: 'mono', text: j.id })),
      el('td', { text: j.type }),
      el('td', { class: 'job-state' }, badge(j.state)),
      el('td', { text: j.submittedBy || '' }),
      el('td', { text: fmt(waitOf(j)) }),
      el('td', { text: fmt(runOf(j)) }),
      el('td', {}, admin && !j.ended ? cancelButton(j.id) : (j.sweep ? el('a', { href: '/ui/sweeps/' + encodeURIComponent(j.sweep), text: 'sweep' }) : null)))));
    if (!list.length) tbody.append(el('tr', {}, el('td', { colspan: '7', class: 'muted', text: 'No jobs yet.' })));
  }

  // ---- /ui/jobs/{id}: the job, its live log, its reports -------------------------------------

  // a job's config as JSON, cut after 4000 characters (a config may be up to 1 MiB: GET /jobs/{id} has it whole)
  function configText(config) {
    const text = JSON.stringify(config);
    return text.length > 4000 ? text.slice(0, 4000) + '... (' + text.length + ' characters: GET /jobs/{id} has it all)' : text;
  }

  function jobPage(id) {
    document.title = 'warmpool: job ' + id;
    const facts = el('dl', { id: 'facts' });
    const buttons = el('p', { class: 'buttons' });
    const title = el('h2', {}, 'Job ', el('span', { class: 'mono', text: id }), ' ', el('span', { id: 'job-state' }));
    const canvas = el('canvas', { id: 'reports-chart' });
    const reports = el('section', { id: 'reports', class: 'hidden' }, el('h3', { text: 'Reports' }), el('div', { class: 'chart' }, canvas));
    const log = el('pre', { id: 'log' });
    main.append(title, facts, buttons, reports, el('section', {}, el('h3', { text: 'Log' }), log));
    let lines = null;
    let config = null; // as the job was read; kept when an event's view leaves it out

    const show = j => {
      document.getElementById('job-state').replaceChildren(badge(j.state));
      if (j.config !== undefined && j.config !== null) config = configText(j.config);
      const rows = [['type', j.type], ['processor', j.processor], ['submitted by', j.submittedBy], ['submitted', j.submittedAt],
        ['wait', fmt(waitOf(j))], ['run', fmt(runOf(j))], ['attempts', j.attempts + ' of ' + j.maxAttempts],
        ['args', j.args ? JSON.stringify(j.args) : null], ['config', config], ['exit code', j.result ? j.result.exitCode : null],
        ['metrics', j.result && j.result.metrics ? JSON.stringify(j.result.metrics) : null], ['error', j.error]];
      facts.replaceChildren(...rows.filter(r => r[1] !== null && r[1] !== undefined && r[1] !== '')
        .flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { text: String(v) })]));
      if (j.sweep) facts.append(el('dt', { text: 'sweep' }), el('dd', {}, el('a', { href: '/ui/sweeps/' + encodeURIComponent(j.sweep), text: j.sweep + ' (trial ' + j.trial + ')' })));
      buttons.replaceChildren(...(admin && !j.ended ? [cancelButton(j.id, 'Cancel job')] : []));
    };

    const report = data => {
      const r = JSON.parse(data);
      reports.className = '';
      if (!lines) {
        lines = chart(canvas, {
          type: 'line', data: { datasets: [] },
          options: { animation: false, responsive: true, maintainAspectRatio: false, parsing: false,
            scales: { x: { type: 'linear', title: { display: true, text: 'step' } } } }
        });
        if (!lines) return;
      }
      const x = typeof r.step === 'number' ? r.step : (lines.data.datasets[0] ? lines.data.datasets[0].data.length : 0);
      for (const [k, v] of Object.entries(r)) {
        if (k === 'step' || typeof v !== 'number') continue;
        let ds = lines.data.datasets.find(d => d.label === k);
        if (!ds) {
          ds = { label: k, data: [], borderColor: Object.values(COLORS)[lines.data.datasets.length % 5], pointRadius: 2 };
          lines.data.datasets.push(ds);
        }
        ds.data.push({ x, y: v });
      }
      lines.update('none');
    };

    api('GET', '/jobs/' + encodeURIComponent(id)).then(j => {
      show(j);
      follow('/jobs/' + encodeURIComponent(id) + '/events', {
        state: data => show(JSON.parse(data)),
        log: data => { log.append(data + '\n'); log.scrollTop = log.scrollHeight; },
        report,
        end: data => show(JSON.parse(data))
      });
    }, err => problem(err.message));
  }

  // ---- /ui/sweeps/{id}: objective by trial, best so far, the trials --------------------------

  const NON_FINITE = ['NaN', 'Infinity', '-Infinity'];

  // ---- /ui/sweeps: the newest sweeps, each linking to its page -------------------------------

  function sweepsPage() {
    document.title = 'warmpool: sweeps';
    const rows = el('tbody');
    main.append(el('section', {}, el('h2', { text: 'Sweeps' }),
      el('table', { id: 'sweeps' },
        el('thead', {}, el('tr', {}, ...['Sweep', 'Type', 'State', 'Trials done', 'Best', 'Created', ''].map(h => el('th', { text: h })))),
        rows)));
    const draw = list => rows.replaceChildren(...list.map(s => el('tr', { dataset: { sweep: s.id } },
      el('td', {}, el('a', { href: '/ui/sweeps/' + encodeURIComponent(s.id), class: 'mono', text: s.id })),
      el('td', { text: s.type }),
      el('td', {}, badge(s.state)),
      el('td', { text: s.progress.done + ' of ' + s.progress.total }),
      el('td', { text: s.best ? String(s.best.value) : '' }),
      el('td', { text: s.createdAt || '' }),
      el('td', { class: 'warning-mark', text: s.warnings ? '\u26a0 ' + s.warnings.length : '', title: (s.warnings || []).join('\n') }))));
    const load = () => api('GET', '/sweeps?limit=200').then(draw, err => problem(err.message));
    load();
    setInterval(load, 3000); // a list, not a stream: each sweep's own page follows it live
  }

  function sweepPage(id) {
    document.title = 'warmpool: sweep ' + id;
    const title = el('h2', {}, 'Sweep ', el('span', { class: 'mono', text: id }), ' ', el('span', { id: 'sweep-state' }));
    const summary = el('p', { id: 'summary' });
    const warnings = el('div', { id: 'warnings' });
    const buttons = el('p', { class: 'buttons' });
    const canvas = el('canvas', { id: 'objective-chart' });
    const trials = el('tbody');
    main.append(title, summary, warnings, buttons, el('div', { class: 'chart' }, canvas),
      el('table', { id: 'trials' }, el('thead', {}, el('tr', {}, ...['#', 'Trial', 'State', 'Objective', 'Config'].map(h => el('th', { text: h })))), trials));
    let plot = null;
    let pending = null;

    const draw = s => {
      document.getElementById('sweep-state').replaceChildren(badge(s.state));
      const objective = s.spec && s.spec.objective;
      const metric = objective ? objective.metric : null;
      const maximize = objective && objective.goal === 'maximize';
      const reported = t => {
        const from = (t.metrics && metric in t.metrics) ? t.metrics : (t.progress && metric in t.progress ? t.progress : null);
        return from ? from[metric] : undefined;
      };
      // plotted: numbers only; the API returns NaN and the infinities as the strings 'NaN', 'Infinity', '-Infinity'
      const valueOf = t => typeof reported(t) === 'number' ? reported(t) : null;
      const shown = t => { const v = reported(t); return typeof v === 'number' || NON_FINITE.includes(v) ? String(v) : ''; };
      const p = s.progress;
      summary.textContent = p.done + ' of ' + p.total + ' trials done, ' + p.active + ' running; ' + p.succeeded + ' succeeded, '
        + p.failed + ' failed, ' + p.earlyStopped + ' stopped early'
        + (s.best ? '. Best ' + (metric || 'value') + ' ' + s.best.value + ' (' + s.best.trial + ')' : '')
        // what it cost (docs/sweeps.md): its trials' run time and the cold starts they met
        + (s.cost ? '. Cost: ' + s.cost.busySeconds.toFixed(1) + ' processor-seconds busy, ' + s.cost.coldStarts + ' cold starts, '
          + (s.cost.idleSeconds || 0).toFixed(1) + ' s held idle between trials' : '')
        // a study the manager runs: its driver job, and the processor-seconds it has held
        + (s.driver ? '. Driver ' + s.driver.job + ' ' + (s.driver.state || '')
          + (s.cost && s.cost.driverSeconds != null ? ', ' + s.cost.driverSeconds.toFixed(1) + ' s' : '') : '');
      warnings.replaceChildren(...(s.warnings || []).map(w => el('p', { class: 'warning', text: w })));
      buttons.replaceChildren(...(admin && s.state === 'RUNNING'
        ? [el('button', { class: 'cancel', onclick: e => act(e.target, () => api('DELETE', '/sweeps/' + encodeURIComponent(id))) }, 'Cancel sweep')] : []));
      const list = (s.trials || []).slice().sort((a, b) => a.index - b.index);
      const points = [];
      const best = [];
      let so = null;
      for (const t of list) {
        const v = t.state === 'SUCCEEDED' ? valueOf(t) : null;
        if (v === null) continue;
        points.push({ x: t.index, y: v });
        so = so === null ? v : (maximize ? Math.max(so, v) : Math.min(so, v));
        best.push({ x: t.index, y: so });
      }
      if (!plot) {
        plot = chart(canvas, {
          type: 'scatter',
          data: { datasets: [
            { label: (metric || 'objective') + ' by trial', data: points, backgroundColor: COLORS.busy },
            { label: 'best so far', data: best, type: 'line', borderColor: COLORS.idle, stepped: true, pointRadius: 0 }] },
          options: { animation: false, responsive: true, maintainAspectRatio: false, parsing: false,
            scales: { x: { type: 'linear', title: { display: true, text: 'trial' }, ticks: { precision: 0 } } } }
        });
      } else {
        plot.data.datasets[0].data = points;
        plot.data.datasets[1].data = best;
        plot.update('none');
      }
      trials.replaceChildren(...list.map(t => el('tr', { dataset: { trial: t.id } },
        el('td', { text: String(t.index) }),
        el('td', {}, el('a', { href: '/ui/jobs/' + encodeURIComponent(t.id), class: 'mono', text: t.id })),
        el('td', {}, badge(t.state)),
        el('td', { text: shown(t) }),
        el('td', { class: 'mono', text: JSON.stringify(t.config) }))));
    };

    const load = () => api('GET', '/sweeps/' + encodeURIComponent(id)).then(draw, err => problem(err.message));
    // each event says the sweep moved: read it whole (at most once per 250 ms)
    const soon = () => { if (!pending) pending = setTimeout(() => { pending = null; load(); }, 250); };
    load().then(() => follow('/sweeps/' + encodeURIComponent(id) + '/events', { sweep: soon, trial: soon, end: soon }));
  }

  const path = location.pathname;
  let m;
  if ((m = path.match(/^\/ui\/jobs\/([^/]+)$/))) jobPage(decodeURIComponent(m[1]));
  else if ((m = path.match(/^\/ui\/sweeps\/([^/]+)$/))) sweepPage(decodeURIComponent(m[1]));
  else if (path === '/ui/sweeps') sweepsPage();
  else overview();
})();
