// Writes BENCHMARKS.md (at the repository root) and bench/results/ratios.svg from the results
// the benchmarks left in bench/results/*.json. Everything shown is read from those files.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  httpGoals as judgeHttpGoals,
  REJECT_GOAL,
  RSS_GOAL_MIB,
  SAME_PROMISES_ACCEPT_GOAL,
  verdict,
} from './http-goals.mjs';
import {
  droppedRows,
  HTTP_COLUMNS,
  httpCells,
  IN_PROCESS_COLUMNS,
  inProcessCells,
  rowNames,
} from './revision-tables.mjs';

const readJson = (file) => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null);

function writeWhole(file, text) {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

const fixed = (value, digits = 2) => (typeof value === 'number' ? value.toFixed(digits) : '–');
const int = (value) =>
  typeof value === 'number' ? Math.round(value).toLocaleString('en-US') : '–';
const range = (pair) => (Array.isArray(pair) ? pair.map((v) => fixed(v)).join('–') : '–');

function mdTable(header, rows, align) {
  const alignRow = header.map((_, i) => (align?.[i] === 'r' ? '---:' : '---'));
  return [header, alignRow, ...rows].map((row) => `| ${row.join(' | ')} |`).join('\n');
}

const escapeXml = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A horizontal bar chart of ratios, grouped, with a line at 1.0 (the baseline) and a dashed
 * line at each group's goal. Plain SVG, no fonts or scripts beyond the system sans-serif.
 */
export function ratioChart(groups) {
  const width = 820;
  const labelWidth = 330;
  const valueWidth = 56;
  const plotWidth = width - labelWidth - valueWidth - 20;
  const rowHeight = 22;
  const headHeight = 28;
  const maxRatio = Math.max(
    1.2,
    ...groups.flatMap((group) => group.bars.map((bar) => bar.ratio ?? 0)),
  );
  const x = (ratio) => labelWidth + (Math.min(ratio, maxRatio) / maxRatio) * plotWidth;
  const colors = { ours: '#2f6fb3', other: '#9aa5b1', reference: '#c9a227' };
  const parts = [];
  let y = 16;
  parts.push(
    `<text x="8" y="${y}" font-size="12" fill="#444">ratio to the hand-written baseline measured in the same run (1.00 = as fast; higher is faster)</text>`,
  );
  y += 12;
  for (const group of groups) {
    y += headHeight;
    parts.push(
      `<text x="8" y="${y - 8}" font-size="13" font-weight="bold" fill="#222">${escapeXml(group.title)}</text>`,
    );
    const top = y;
    const bottom = top + group.bars.length * rowHeight;
    // Reference lines first, so bars and figures are drawn over them.
    parts.push(
      `<line x1="${x(1).toFixed(1)}" y1="${top}" x2="${x(1).toFixed(1)}" y2="${bottom}" stroke="#222" stroke-width="1"/>`,
    );
    if (group.goal) {
      parts.push(
        `<line x1="${x(group.goal).toFixed(1)}" y1="${top}" x2="${x(group.goal).toFixed(1)}" y2="${bottom}" stroke="#c0392b" stroke-width="1" stroke-dasharray="4 3"/>`,
        `<text x="${(x(group.goal) - 4).toFixed(1)}" y="${top - 2}" font-size="10" text-anchor="end" fill="#c0392b">goal ${group.goal.toFixed(2)}</text>`,
      );
    }
    for (const bar of group.bars) {
      const ratio = bar.ratio;
      const barY = y + 4;
      parts.push(
        `<text x="${labelWidth - 8}" y="${y + 15}" font-size="12" text-anchor="end" fill="#222">${escapeXml(bar.label)}</text>`,
      );
      if (typeof ratio === 'number') {
        parts.push(
          `<rect x="${labelWidth}" y="${barY}" width="${(x(ratio) - labelWidth).toFixed(1)}" height="${rowHeight - 8}" fill="${colors[bar.kind] ?? colors.other}"/>`,
          `<text x="${(x(ratio) + 6).toFixed(1)}" y="${y + 15}" font-size="12" fill="#222" stroke="#fff" stroke-width="3" paint-order="stroke">${ratio.toFixed(2)}</text>`,
        );
      } else {
        parts.push(
          `<text x="${labelWidth + 6}" y="${y + 15}" font-size="12" fill="#888">not measured</text>`,
        );
      }
      y += rowHeight;
    }
  }
  y += 16;
  const legend = [
    ['ours', '@faceverify'],
    ['other', 'other libraries'],
    ['reference', 'reference'],
  ];
  legend.forEach(([kind, text], i) => {
    const lx = labelWidth + i * 150;
    parts.push(
      `<rect x="${lx}" y="${y - 10}" width="12" height="12" fill="${colors[kind]}"/>`,
      `<text x="${lx + 18}" y="${y}" font-size="12" fill="#222">${text}</text>`,
    );
  });
  y += 12;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${y}" viewBox="0 0 ${width} ${y}" font-family="-apple-system, 'Segoe UI', Helvetica, Arial, sans-serif">
<rect width="100%" height="100%" fill="#fff"/>
${parts.join('\n')}
</svg>
`;
}

function chartGroups({ verify, http }) {
  const groups = [];
  if (verify) {
    groups.push({
      title: 'verify, 2 KiB body: ops/s of each helper',
      goal: verify.goal?.ratio,
      bars: [
        ...(verify.helpers?.results ?? []).map((r) => ({
          label: r.helper,
          ratio: r.ratio,
          kind: r.helper.startsWith('@faceverify')
            ? 'ours'
            : r.helper.includes('reference')
              ? 'reference'
              : 'other',
        })),
      ],
    });
    groups.push({
      title: 'verify, @faceverify/core by body size and secrets',
      goal: verify.goal?.ratio,
      bars: verify.results.map((r) => ({ label: r.scenario, ratio: r.ratio, kind: 'ours' })),
    });
  }
  if (http) {
    const accepted = http.comparisons.filter((c) => (c.signing ?? 'valid') === 'valid');
    groups.push({
      title:
        'HTTP: server CPU per accepted webhook, plain hand-written over ours, in each framework',
      goal: http.goals ? undefined : http.goal?.ratio,
      bars: accepted
        .filter((c) => (c.against ?? 'plain') === 'plain')
        .map((c) => ({
          label: c.reference ? 'Octokit createNodeMiddleware (node:http)' : c.name,
          ratio: http.goals ? c.cpuPerRequestRatio : c.ratio,
          kind: c.reference ? 'other' : 'ours',
        })),
    });
    const kept = accepted.filter((c) => c.against === 'promises');
    if (kept.length > 0) {
      groups.push({
        title:
          'HTTP: server CPU per accepted webhook, hand-written keeping the same promises over ours',
        goal: SAME_PROMISES_ACCEPT_GOAL,
        bars: kept.map((c) => ({
          label: c.name.replace(/, against the same promises kept$/, ''),
          ratio: c.cpuPerRequestRatio,
          kind: 'ours',
        })),
      });
    }
  }
  return groups;
}

function machineSection(machine) {
  if (!machine) return '';
  return `${mdTable(
    ['', ''],
    [
      ['CPU', `${machine.cpu} (${machine.cpuCount} cores)`],
      ['memory', `${machine.memoryGiB} GiB`],
      ['OS', `${machine.os ?? machine.platform} (${machine.platform})`],
      ['Node', `${machine.node} (V8 ${machine.v8}, OpenSSL ${machine.openssl})`],
      ['date', `${machine.date.slice(0, 10)} (each section gives its own time and commit)`],
      ['commit', `\`${machine.commit ?? 'unknown'}\``],
    ],
  )}\n`;
}

const measured = (data) =>
  data
    ? `Measured ${data.machine.date.slice(0, 16).replace('T', ' ')} UTC at commit \`${data.machine.commit ?? 'unknown'}\`.`
    : '';

function verifySection(verify) {
  if (!verify) return '## verify\n\nNo results yet: run `pnpm bench`.\n';
  const helpers = verify.helpers;
  return `## verify: signature checks (\`bench/verify.bench.mjs\`)

${measured(verify)} ${verify.settings.rounds} rounds of ${verify.settings.sampleMs} ms per function.
Baseline: hand-written \`createHmac\` + \`Buffer.from(hex)\` + \`timingSafeEqual\` on the raw bytes.

${mdTable(
  ['scenario', 'core / baseline', 'per-round range'],
  verify.results.map((r) => [r.scenario, fixed(r.ratio), range(r.roundRatioRange)]),
  ['l', 'r', 'r'],
)}

Goal: ${verify.goal.scenario} at ≥ ${fixed(verify.goal.ratio)}: **${fixed(verify.goal.measured)}** (${verify.goal.met ? 'met' : 'not met'}).
${
  helpers
    ? `
Today's helpers on the same 2 KiB body, each called as its documentation shows with its own
correctly built header, against the same baseline in the same rotating rounds. Stripe and
Standard Webhooks also parse the JSON and check a timestamp, and Octokit's \`verify\` takes a
string (the bytes are decoded in each call): that is what they cost users. The last row shows
what parsing alone costs the baseline.

${mdTable(
  ['helper', 'ratio to baseline', 'per-round range'],
  helpers.results.map((r) => [r.helper, fixed(r.ratio), range(r.roundRatioRange)]),
  ['l', 'r', 'r'],
)}
`
    : ''
}`;
}

function httpSection(http) {
  if (!http) return '## HTTP\n\nNo results yet: run `pnpm bench`.\n';
  const s = http.settings;
  const signingName = { wrong: 'wrongly signed', unsigned: 'unsigned' };
  const rows = http.comparisons.map((c) => {
    const ours = c[c.candidate];
    return [
      c.signing && c.signing !== 'valid' ? `${c.name}, ${signingName[c.signing]}` : c.name,
      fixed(c.ratio),
      range(c.roundRatioRange),
      fixed(c.baseline.p99Ms, 0),
      fixed(ours.p99Ms, 0),
      fixed(c.p99Ratio),
      fixed(c.baseline.serverCpuMicrosPerRequest, 0),
      fixed(ours.serverCpuMicrosPerRequest, 0),
      fixed(c.cpuPerRequestRatio),
      `${fixed(c.baseline.serverCpuLoad)} / ${fixed(ours.serverCpuLoad)}`,
    ];
  });
  const withExternal = (http.rss ?? []).some((r) => typeof r.externalGrowthMiB === 'number');
  const rss = (http.rss ?? []).map((r) => [
    `${r.framework}, ${r.label}`,
    int(r.requests),
    fixed(r.rssBeforeMiB, 1),
    fixed(r.rssAfterMiB, 1),
    fixed(r.rssGrowthMiB, 1),
    fixed(r.heapBeforeMiB, 1),
    fixed(r.heapAfterMiB, 1),
    int(r.heapBytesPerRequest),
    // Only runs since the rows kept the bytes outside V8's heap have the columns.
    ...(withExternal
      ? [
          `${fixed(r.heapTotalBeforeMiB, 1)} → ${fixed(r.heapTotalAfterMiB, 1)}`,
          fixed(r.externalGrowthMiB, 1),
        ]
      : []),
  ]);
  return `## HTTP: adapters under load (\`bench/http.bench.mjs\`)

${measured(http)} autocannon on 127.0.0.1, ${s.connections} connections, ${s.rounds} rounds of
${s.durationS} s (after ${s.warmupS} s of warm-up) per side, alternating which side goes first;
each server in its own child process, started fresh for each measurement. Every request is a
distinct, correctly signed 2 KiB \`verification.completed\` body (so none is a replay the
Receiver could skip), the same sequence for both sides; every answer was checked to be 2xx and
every accepted request to have reached the handler. Ours: the built adapter with
\`createReceiver({ secret, client: false, store: new MemoryStore() })\`. Baseline: the same
framework reading the raw body (Express \`express.raw()\`, Koa \`raw-body\`, Hono
\`c.req.arrayBuffer()\`, Fastify's \`parseAs: 'buffer'\`, a Fetch handler's
\`request.arrayBuffer()\`, node:http chunks), \`createHmac\` + \`timingSafeEqual\`,
\`JSON.parse\`, \`200\`. The Fetch handler runs on Node through \`@hono/node-server\` and on
\`Bun.serve\`${http.bun ? ` (Bun ${http.bun})` : ''}. The Octokit row is \`@octokit/webhooks\`
\`createNodeMiddleware\` against a node:http hand-written receiver, as a reference. The rows
"wrongly signed" and "unsigned" flood both sides with requests each must refuse with \`401\`
(a well-formed signature made with another secret; no signature header), ours with its
rejection logging in place.${promisesText(http)}

"req/s ratio" is median req/s of ours over median req/s of the baseline. "CPU ratio" is the
baseline's server CPU time per request over ours (1.00 = the same work per request): it does
not depend on who set the pace. "server load" is the share of one core the server process
used: near 1.00 the server was the bottleneck; well below, the load generator (which shares the
machine's two cores and signs every request) set the pace, and the req/s ratio understates the
difference in work, so read the CPU ratio there.

${mdTable(
  [
    'framework',
    'req/s ratio',
    'per-round range',
    'p99 ms baseline',
    'p99 ms ours',
    'p99 ratio',
    'CPU µs/req baseline',
    'CPU µs/req ours',
    'CPU ratio',
    'server load base / ours',
  ],
  rows,
  ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
)}

${httpGoals(http)}
${layersSection(http.layers)}
### Server memory over ${int(s.rssRequests)} requests

${http.rssMachine ? `${measured({ machine: http.rssMachine })} (\`--rss-only\`: the rows above are the run's before.)\n\n` : ''}RSS and V8 heap of the server process after a 5,000-request warm-up and a GC ("before"), and
after the requests and a GC ("after"). The Receiver remembers every accepted delivery for its
replay window, 24 h by default, so memory grows with the deliveries of a day by design; the
1 s window shows what remains once that retention is taken out.

${rssSettingText(s)}${settledText(s)}

${mdTable(
  [
    'server',
    'requests',
    'RSS before MiB',
    'RSS after MiB',
    'RSS growth MiB',
    'heap before MiB',
    'heap after MiB',
    'heap growth B/req',
    ...(withExternal ? ['heap committed MiB', 'external growth MiB'] : []),
  ],
  rss,
  ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', ...(withExternal ? ['r', 'r'] : [])],
)}
${withExternal ? committedText : ''}`;
}

/** Koa's accept path layer by layer, when the run measured it. */
function atRestSection(atRest) {
  const title = '## At rest, in process (`bench/at-rest.bench.mjs`)';
  if (!atRest)
    return `${title}\n\nNo results yet: run \`pnpm bench:at-rest\` (or \`pnpm bench\`).\n`;
  const s = atRest.settings;
  const r = atRest.result;
  return `${title}

${measured(atRest)} ${s.rounds} rounds of ${int(s.batch)} distinct, correctly signed webhooks per side, the
sides taking turns in one process, each first in as many rounds: \`receiver.receive()\` (MemoryStore, no client) and the
hand-written receiver of the rows "at rest too" above (\`keptPromises\` with \`atRest\`,
\`bench/lib/hand-written.mjs\`), with no network, framework or load generator. "ratio" is the
hand-written receiver's CPU per webhook over ours, the median of the rounds' own ratios.

${mdTable(
  ['side', 'CPU µs/webhook'],
  [
    [atRest.sides[0], fixed(r.baselineCpuMicros, 1)],
    [atRest.sides[1], fixed(r.oursCpuMicros, 1)],
    // Runs before the tokenKeys side have two sides.
    ...(r.withTokenKeys ? [[atRest.sides[2], fixed(r.withTokenKeys.cpuMicros, 1)]] : []),
  ],
  ['l', 'r'],
)}

- ratio: **${fixed(r.ratio)}** (rounds ${range(r.ratioRange)}); the goal of the HTTP rows "at rest
  too", at least ${fixed(r.goal, 1)}: **${r.met ? 'met' : 'not met'}**.${
    r.withTokenKeys
      ? `
- with \`tokenKeys\` set (a dedicated token key beside the signing secret, as production runs):
  ${fixed(r.withTokenKeys.ratio)} (rounds ${range(r.withTokenKeys.ratioRange)}).`
      : ''
  }
`;
}

function layersSection(layers) {
  if (!layers) return '';
  return `
### Where the CPU of an accepted webhook goes (Koa, layer by layer)

The Receiver's accept path rebuilt from core's public parts, one guarantee at a time, each
server measured like the rows above (same rounds, same bodies, rotating order): what each layer
adds per webhook over the one before (\`bench/lib/http-server.mjs\`, \`layerOf\`). The
last row is the Koa adapter as users mount it.

${mdTable(
  ['layer', 'CPU µs/req', 'added µs'],
  layers.map((l) => [
    l.name,
    fixed(l.cpuMicrosPerRequest, 1),
    l.addedMicros === null ? '' : fixed(l.addedMicros, 1),
  ]),
  ['l', 'r', 'r'],
)}
`;
}

/** What the rows "against the same promises kept" compare, when the run measured them. */
function promisesText(http) {
  if (!http.comparisons.some((c) => c.against === 'promises')) {
    return `

This run has no rows against a hand-written receiver keeping the same promises (added to
\`bench/http.bench.mjs\` after it): rerun \`pnpm bench:http\` for them.`;
  }
  return `

The rows "against the same promises kept" compare ours, measured the same way, with a
hand-written receiver in the same framework that keeps, written plainly, what ours keeps in
process (\`keptPromises\` in \`bench/lib/hand-written.mjs\`): the replay window (a \`Map\` of
body digest to expiry, pruned from its oldest entry), a record that survives a throwing handler
(the result waits in a \`Map\` until its handler returned; one that threw is retried by a
timer), the body deadline (a 10 s timer per request that aborts a body still arriving; a
\`Promise.race\` for the Fetch handler and Hono) and the rejection log (at most one line a
minute per kind). It answers the same bodies and passes the same checks as the other rows.${
    http.comparisons.some((c) => c.against === 'at-rest')
      ? `

The rows "at rest too" compare ours with that receiver doing besides, written plainly, what ours
does so that no store holds a user's id, a token or a result in clear (\`keepAtRest\` in
\`bench/lib/hand-written.mjs\`; docs/guarantees.md, 19 and 27): HMAC-SHA256 of the user id and
of the record key under a key of its own, the result as JSON sealed with AES-256-GCM (the
record key as associated data) and base64url, kept in a \`Map\` of the Receiver's cache bound.
Ours does this for every store, \`MemoryStore\` included.`
      : ''
  }`;
}

/** How the RSS runs sized V8's young generation. */
function rssSettingText(settings) {
  if (!settings.semiSpaceMiB) {
    return `Measured with V8's default heap sizing: its one-time young-generation step (16 to 32
MiB, \`bench/README.md\`) falls within the run for some servers and not for others, and decides
their difference; \`bench/http.bench.mjs\` now runs both sides with
\`--max-semi-space-size=8\` by default.`;
  }
  return `Both sides ran with \`node --max-semi-space-size=${settings.semiSpaceMiB}\` (the
default of \`bench/http.bench.mjs\`; \`--semi-space-mib=0\` for V8's own sizing), so V8's
one-time young-generation step, which one side may take within the run and the other not
(\`bench/README.md\`), does not decide the comparison.`;
}

// RSS follows the heap V8 keeps committed, which its memory reducer gives back when it decides
// to; the heap in use is what the server holds.
const committedText = `
"heap committed" is V8's \`heapTotal\` before → after: RSS follows it, and V8's memory reducer,
which gives back what the heap no longer uses, had not always run when a reading was taken
(a library row committing 40 MiB for 13 in use), so an RSS growth can be below zero or swing by
the same tens of MiB. The heap in use after a GC (\`heapUsed\`, the "heap growth" column) is what
the server holds; the library's digests of its replay window are in "external".
`;

/** How the run let V8 give memory back before each reading, when it did. */
function settledText(settings) {
  if (!settings.rssSettleS) return '';
  return ` Each reading followed ${settings.rssSettleS} s of idling and a GC, with
\`--no-concurrent-sweeping\` on both sides, so that V8 could give back the pages it freed or
kept unused (\`bench/README.md\`, "Reading RSS when the heap has settled").`;
}

/**
 * The speed issue's goals and the earlier ones, judged from the run's rows
 * (\`lib/http-goals.mjs\`), whatever the results file stored; the oldest results carry one
 * req/s goal.
 */
function httpGoals(http) {
  if (!http.goals && http.goal)
    return `Goal: ${http.goal.description}: **${http.goal.met ? 'met' : 'not met'}**.`;
  const { issue, atRest, earlier } = judgeHttpGoals(http);
  const atRestMeasured = Object.values(atRest).some((goal) => goal.met !== null);
  return `The speed issue's goals, judged from this run's rows (\`bench/lib/http-goals.mjs\`): CPU
per accepted webhook at ≥ ${SAME_PROMISES_ACCEPT_GOAL} of the receiver keeping the same promises on every
framework, a rejection at most ${fixed(REJECT_GOAL)}× the plain hand-written receiver's CPU, and
memory within ${RSS_GOAL_MIB} MiB of it past V8's one-time young-generation step:

${goalLines(issue)}
${
  atRestMeasured
    ? `
The issue's baseline keeps the in-process promises only. The same CPU goal judged against the
rows "at rest too", whose hand-written receiver also does the work ours does for a store
(for comparison, not the issue's goal):

${goalLines(atRest)}
`
    : ''
}
The goals stated before, judged on the same rows for comparison:

${goalLines(earlier)}`;
}

/** One line per goal: what it asks, whether it was met, and what was measured. */
function goalLines(goals) {
  return Object.values(goals)
    .map((goal) => {
      const measured = Object.entries(goal.measured)
        .map(([id, value]) => `${id} ${value}`)
        .join(', ');
      const judged = verdict(goal).replace('NOT met', 'not met');
      return `- Goal: ${goal.description}: **${judged}**${measured ? ` (${measured})` : ''}.${heapAccountText(goal.heapAccount)}`;
    })
    .join('\n');
}

/** The memory goal's heap account, per framework, when the run's rows have one. */
function heapAccountText(account) {
  const rows = Object.entries(account ?? {});
  if (rows.length === 0) return '';
  const lines = rows.map(
    ([id, a]) =>
      `${id}: ${fixed(a.beyondPlainMiB, 1)} MiB beyond the plain receiver's growth once ${fixed(a.unusedCommittedMiB, 1)} MiB of heap V8 keeps committed but unused are taken out (heap in use ${fixed(a.heapInUseMiB, 1)}, outside the heap ${fixed(a.externalMiB, 1)}: the replay window's digests)`,
  );
  return ` The heap's account: ${lines.join('; ')}.`;
}

/** Where our Worker's bytes come from, when the run recorded it. */
function edgeBreakdown(size, kib) {
  if (!size?.packages) return '';
  const { messages } = size;
  return `
Its minified bytes by package: ${size.packages
    .map((p) => `${p.name} ${kib(p.minifiedBytes)} KiB`)
    .join(', ')}. Of the gzipped size, ${kib(messages.gzippedBytes)} KiB are the ${messages.count}
messages of 60 characters or more (error answers, configuration errors and log lines that say
how to fix what went wrong).
`;
}

function edgeSection(edge) {
  if (!edge) return '## Edge\n\nNo results yet: run `pnpm bench`.\n';
  const kib = (bytes) => fixed(bytes / 1024, 1);
  return `## Edge: Worker size and start-up (\`bench/edge.bench.mjs\`)

${measured(edge)} Each Worker (\`bench/edge/\`) bundled by esbuild for workerd (ESM, minified,
the \`workerd\` conditions) from the built packages, and gzipped at level 9.

${mdTable(
  ['Worker', 'minified KiB', 'gzipped KiB'],
  edge.sizes.map((size) => [size.name, kib(size.minifiedBytes), kib(size.gzippedBytes)]),
  ['l', 'r', 'r'],
)}

Ours is ${fixed(edge.ratio)}× the hand-written Worker gzipped: it also carries the replay window,
payload validation, the API client and polling, the Store contract on D1 and the sweep.
${edgeBreakdown(edge.sizes[0], kib)}
\`createReceiver()\` on Node, median of ${edge.settings.rounds} fresh processes: importing
\`@faceverify/core\` ${fixed(edge.startup.importMs, 1)} ms, the first \`createReceiver()\`
${fixed(edge.startup.firstCreateMs, 2)} ms, each later one ${fixed(edge.startup.warmCreateMs, 3)} ms.
`;
}

/** The names the tracker section gives its stores. */
const STORE_NAMES = {
  memory: 'MemoryStore',
  redis: 'RedisStore',
  postgres: 'PostgresStore',
  pglite: 'PGliteStore',
  d1: 'D1Store',
};
const storeName = (id) => {
  const [base, more] = id.split(', ');
  return more ? `${STORE_NAMES[base] ?? base}, ${more}` : (STORE_NAMES[id] ?? id);
};

/**
 * The headline sweep at another revision and here, side by side (`tracker.bench.mjs --against`),
 * against issue 45's goal; nothing when it was not run.
 */
function trackerAgainstSection(against) {
  if (!against) return '';
  const revision = against.against?.revision ?? 'another revision';
  const rows = against.rows.map((r) => [
    storeName(r.store),
    fixed(r.beforeMs),
    fixed(r.afterMs),
    fixed((r.afterMs * 1000) / r.due, 1),
    fixed(r.ratio),
    r.ratios.map((ratio) => fixed(ratio)).join(' '),
  ]);
  const judged = against.goal.met ? 'met' : 'not met';
  return `
### Against \`${revision}\`, before sealing (\`--against=${revision}\`)

${measured(against)} The sweep of ${int(against.rows[0]?.due)} due sessions among ${int(against.rows[0]?.tracked)} tracked at \`${revision}\`, as its
own bench ran it (no token keys, the sessions in clear), and here, with ${against.settings.tokenKeys} token keys and the
sessions sealed; the two sides alternate round by round in one process, so both run under the
same load (load average ${against.loadAverage.map((x) => fixed(x)).join(' / ')} at the end). ${int(against.settings.rounds)} rounds per side; the ratio is
the median of the rounds' own ratios, each round's beside it.

${mdTable(
  [
    'store',
    `sweep ms at ${revision}`,
    'sweep ms here',
    'µs per due session here',
    'here / before',
    'each round',
  ],
  rows,
  ['l', 'r', 'r', 'r', 'r', 'l'],
)}

- Goal: a sweep per due session within ${fixed(against.goal.factor, 1)}x of \`${revision}\` on MemoryStore, Redis and PostgreSQL, with ${against.settings.tokenKeys} token keys: **${judged}** (${against.rows.map((r) => `${r.store} ${fixed(r.ratio)}`).join(', ')}).
`;
}

function trackerSection(tracker) {
  if (!tracker) return '## Tracker\n\nNo results yet: run `pnpm bench`.\n';
  const v = tracker.versions ?? {};
  const headline = { tracked: 100_000, due: 1000 };
  const rows = tracker.rows.map((r) => [
    storeName(r.store),
    int(r.tracked),
    int(r.due),
    fixed(r.sweepMs),
    int(r.deliveriesPerSecond),
    fixed(r.naiveMs),
    fixed(r.naiveOverSweep),
    fixed(r.leaseDueMs),
    fixed(r.naiveSelectMs),
    fixed(r.naiveSelectOverLeaseDue),
    r.roundTrips ? int(r.roundTrips.sweep) : '–',
  ]);
  const redis = tracker.rows.find(
    (r) => r.store === 'redis' && r.tracked === headline.tracked && r.due === headline.due,
  );
  const headlineRows = tracker.rows
    .filter((r) => r.tracked === headline.tracked && r.due === headline.due)
    .map((r) => [
      storeName(r.store),
      fixed(r.sweepMs),
      int(r.deliveriesPerSecond),
      redis ? fixed(r.sweepMs / redis.sweepMs) : '–',
    ]);
  const growthRows = Object.entries(tracker.scaling ?? {}).map(([store, factors]) => {
    const factor = (prefix) => {
      const key = Object.keys(factors).find((k) => k.startsWith(prefix));
      return key === undefined ? '–' : `×${fixed(factors[key])}`;
    };
    return [
      storeName(store),
      factor('sweep: tracked'),
      factor('sweep: due'),
      factor('naive: tracked'),
      factor('naive: due'),
    ];
  });
  const handlers = tracker.handlers ?? [];
  const handlerRows = handlers.map((h) => {
    const plainRow = tracker.rows.find(
      (r) => r.store === h.store && r.tracked === headline.tracked && r.due === h.due,
    );
    return [
      storeName(h.store),
      plainRow ? int(plainRow.deliveriesPerSecond) : '–',
      `${int(h.plain.deliveriesPerSecond)} (${fixed(h.plain.sweepMs, 0)} ms)`,
      `${int(h.transactional.deliveriesPerSecond)} (${fixed(h.transactional.sweepMs, 0)} ms)`,
      fixed(h.transactionalOverPlain),
    ];
  });
  const servers = [
    v.redis ? `Redis ${v.redis}` : null,
    v.postgres ? `PostgreSQL ${v.postgres}` : null,
  ].filter(Boolean);
  const stores = [...new Set(tracker.rows.map((r) => r.store.split(', ')[0]))];
  return `## Tracker: one sweep (\`bench/tracker.bench.mjs\`)

${measured(tracker)} ${servers.length > 0 ? `${servers.join(' and ')} on loopback (started by the benchmark, no persistence, \`fsync=off\` for PostgreSQL through a \`pg\` pool of 10).` : ''}${stores.includes('pglite') ? ` PGlite ${v['@electric-sql/pglite'] ?? ''} in memory, in the benchmark's process.` : ''}${stores.includes('d1') ? ` D1 is local D1 in Miniflare 4 (workerd ${v.workerd ?? ''}, SQLite in memory), with the Receiver and the timing inside the Worker (whole milliseconds).` : ''}
Median of ${tracker.settings.rounds} rounds per cell${tracker.loadAverage ? `; load average ${tracker.loadAverage.map((x) => fixed(x)).join(' / ')} (1 / 5 / 15 min) at the end of the run` : ''}.

The due sessions hold a stored result (state \`delivering\`: a webhook whose handler failed,
due for a retry), so a sweep leases them, runs the handler and settles them: store work and
handler calls only, no HTTP.${tracker.settings.tokenKeys ? ` The sweeping Receiver lists ${tracker.settings.tokenKeys} token keys, and the due sessions are stored sealed, as a Receiver with those keys writes them (D1's Worker seeds them in clear), so a sweep opens each token and result it delivers.` : ''} The other tracked sessions are pending and due in an hour. The
naive approach keeps the same sessions in one collection and scans all of them each time: a
\`Map\` for memory, one hash per session read with \`SCAN\` + \`HMGET\` for Redis (in its own
database), one SQL table without an index on the due time for PostgreSQL, PGlite and D1; it
delivers the due ones with the same concurrency (${tracker.settings.concurrency}), reading and
updating one row per session. "leaseDue" and "scan" time the selection alone. Ratios above 1
mean the indexed store is faster. In memory and in an SQL engine a full scan of 100,000 rows
costs milliseconds, so the index pays off only when few of many sessions are due; with Redis
every session scanned is a read over the network, and the index decides.

One sweep of ${int(headline.due)} due sessions among ${int(headline.tracked)} tracked, one
instance, sweepConcurrency ${tracker.settings.concurrency} (the default):

${mdTable(['store', 'sweep ms', 'deliveries/s', 'time / Redis'], headlineRows, [
  'l',
  'r',
  'r',
  'r',
])}

Every cell:

${mdTable(
  [
    'store',
    'tracked',
    'due',
    'sweep ms',
    'deliveries/s',
    'naive ms',
    'naive / sweep',
    'leaseDue ms',
    'scan ms',
    'scan / leaseDue',
    'D1 round trips',
  ],
  rows,
  ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
)}

How the times grow (time at the larger count over time at the smaller; tracked 10,000 →
100,000 with 1,000 due, due 100 → 1,000 with 100,000 tracked):

${mdTable(
  ['store', 'sweep, tracked ×10', 'sweep, due ×10', 'naive, tracked ×10', 'naive, due ×10'],
  growthRows,
  ['l', 'r', 'r', 'r', 'r'],
)}
${
  handlerRows.length > 0
    ? `
### Deliveries per second with a handler that writes

The transactional stores, ${int(headline.tracked)} tracked, ${int(handlers[0].due)} due per sweep,
one instance: a \`verification.completed\` handler INSERTs one row per result, either through
\`context.transaction\` (registered \`{ transactional: true }\`: the row and the completed record
commit together) or through the pool on its own connection (a plain handler, the row committed
before the record). Both sweep the same store in alternating rounds; the first column is the
cell above, whose handler only counts.

${mdTable(
  [
    'store',
    'no-op handler, deliveries/s',
    'plain INSERT, deliveries/s',
    'transactional INSERT, deliveries/s',
    'time transactional / plain',
  ],
  handlerRows,
  ['l', 'r', 'r', 'r', 'r'],
)}
`
    : ''
}${tracker.goals ? `\n${goalLines(tracker.goals)}\n` : ''}`;
}

/** A webhook's answer time with a delay per store round trip (bench/latency.bench.mjs). */
function latencySection(latency) {
  if (!latency) {
    return '## Latency under store delay\n\nNo results yet: run `pnpm bench:latency` (or `pnpm bench`).\n';
  }
  const v = latency.versions ?? {};
  const servers = [
    v.redis ? `Redis ${v.redis}` : null,
    v.postgres ? `PostgreSQL ${v.postgres}` : null,
  ].filter(Boolean);
  const rows = latency.rows.map((r) => [
    storeName(r.store),
    int(r.delayMs),
    r.ours.roundTripsRange[0] === r.ours.roundTripsRange[1]
      ? int(r.ours.roundTrips)
      : `${int(r.ours.roundTrips)} (${r.ours.roundTripsRange.join('–')})`,
    fixed(r.ours.p50Ms, 1),
    fixed(r.ours.p99Ms, 1),
    fixed(r.handWritten.p50Ms, 1),
    fixed(r.handWritten.p99Ms, 1),
    fixed(r.ours.p50OverFloor),
    fixed(r.handWritten.p50OverFloor),
    fixed(r.ours.p50Ms / r.handWritten.p50Ms, 1),
  ]);
  return `## Latency under store delay (\`bench/latency.bench.mjs\`)

${measured(latency)} ${servers.join(' and ')} on loopback, started by the benchmark, each
reached through a TCP proxy on loopback that holds the first chunk of every request/response
turn for the delay (requests in flight together share it; answers pass at once): a store
${int(latency.settings.delaysMs[0])}${latency.settings.delaysMs.length > 1 ? ` or ${latency.settings.delaysMs.slice(1).join(' or ')}` : ''} ms of round trip away. ${int(latency.settings.webhooks)} webhooks per side and cell, one
at a time, the two sides alternating.

Ours: \`receiver.receive()\` (built dist, real clock) of a webhook naming its session, tracked
beforehand (untimed), a handler that counts: the path of the round-trip table's first row. The
round trips of every webhook are counted on the client while it is answered, with the meter the
round-trip tests use; the tests pin ${latency.rows
    .map((r) => r.store)
    .filter((store, i, all) => all.indexOf(store) === i)
    .map(
      (store) =>
        `${storeName(store)} at ${latency.rows.find((r) => r.store === store).pinnedRoundTrips}`,
    )
    .join(
      ', ',
    )}. Hand-written: \`createHmac\` + \`timingSafeEqual\`, \`JSON.parse\`, the delivery's record kept with one round trip (Redis \`SET ... NX EX\`, PostgreSQL
\`INSERT ... ON CONFLICT DO NOTHING\`), the handler, the answer. "p50 / (round trips × delay)"
is the median answer time over the wait the round trips alone explain: 1.00 means they are the
whole wait, and what is above it is work on this side and the store's.

${mdTable(
  [
    'store',
    'delay ms',
    'round trips, ours',
    'p50 ms ours',
    'p99 ms ours',
    'p50 ms hand-written',
    'p99 ms hand-written',
    'p50 / (round trips × delay), ours',
    'p50 / delay, hand-written',
    'p50 ours / hand-written',
  ],
  rows,
  ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
)}
`;
}

/**
 * Webhooks sent concurrently to several instances on a store far away
 * (bench/latency.bench.mjs, the concurrent case), against the goal of issue 45.
 */
/** A row of the concurrent latency case: its store, and on PostgreSQL its pool and options. */
function concurrentRowName(r) {
  if (!r.poolMax) return storeName(r.store);
  const pipelined =
    r.pipelinedConnections === null || r.pipelinedConnections === undefined
      ? ''
      : `, pipelinedConnections ${int(r.pipelinedConnections)}`;
  return `${storeName(r.store)} (pool ${int(r.poolMax)}${pipelined}${r.transactional ? ', transactional handler' : ''})`;
}

function latencyConcurrentSection(concurrent) {
  if (!concurrent) {
    return '## Latency of concurrent webhooks, store far away\n\nNo results yet: run `pnpm bench:latency`.\n';
  }
  const { settings } = concurrent;
  const rows = concurrent.rows.map((r) => [
    concurrentRowName(r),
    int(r.answers),
    int(r.mostInFlight),
    int(r.p50Ms),
    int(r.p99Ms),
    int(r.maxMs),
    int(r.pastSenderTimeout),
    Object.entries(r.statuses)
      .map(([status, n]) => `${status}: ${int(n)}`)
      .join(', '),
    r.poolWaitingMax.some((n) => n !== null) ? r.poolWaitingMax.map(int).join(', ') : '–',
  ]);
  return `## Latency of concurrent webhooks, store far away (\`bench/latency.bench.mjs\`)

${measured(concurrent)} The store in another region: every chunk sent to it is held
${int(settings.chunkDelayMs[0])}-${int(settings.chunkDelayMs[1])} ms (drawn for each chunk, never overtaking the one before; answers pass at once).
${int(settings.sessions)} sessions are started (untimed), then all completed at the emulator at once, which sends their
webhooks concurrently, as the service does, to ${int(settings.instances)} receiver processes behind one round-robin
balancer: Express with \`verificationWebhook\`, a Receiver with an API client (the emulator) and
the defaults, sweeping, on the store through the delay (PostgreSQL: a \`pg\` pool of the size shown,
its connections open before the burst; PostgresStore's default \`pipelinedConnections\`, half the
pool, its statements many at once on each, and \`0\`, each statement on a connection of its own as
before). Each answer is timed at the balancer, from the request's
arrival to the answer's end; the emulator gives up after ${int(concurrent.senderTimeoutMs / 1000)} s as the service does, and answers past
that are counted. The goal (issue 45): PostgreSQL p50 at most 2 s and none past 10 s.${concurrent.loadAverage ? ` Load average ${concurrent.loadAverage.map((x) => fixed(x)).join(' / ')} (1 / 5 / 15 min) at the end of the run.` : ''}

${mdTable(
  [
    'store',
    'answers',
    'most awaited at once',
    'p50 ms',
    'p99 ms',
    'max ms',
    `past ${int(concurrent.senderTimeoutMs / 1000)} s`,
    'statuses',
    'most callers waiting for a connection, per instance',
  ],
  rows,
  ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'l', 'r'],
)}

Where an answer's time went: each store method's calls per answer and their mean time as the
Receiver saw it (waiting for a pooled connection included), and the service's answers to the
webhooks' confirmations (\`GET /v1/sessions/:token\`, not delayed):

${concurrent.rows
  .map((r) => {
    const calls = Object.entries(r.storeCalls)
      .filter(([, { calls }]) => calls >= r.answers)
      .map(
        ([method, { calls, meanMs }]) =>
          `${method} ${fixed(calls / r.answers, 0)}× ${int(meanMs)} ms`,
      )
      .join(', ');
    const statements = r.statementsPerAnswer
      ? `; ${fixed(r.statementsPerAnswer, 1)} statements per answer`
      : '';
    return `- ${concurrentRowName(r)}: ${calls}${statements}; the service p50 ${int(r.serviceCalls.p50Ms)} ms.`;
  })
  .join('\n')}
${concurrent.goals && Object.keys(concurrent.goals).length > 0 ? `\n${goalLines(concurrent.goals)}\n` : ''}`;
}

const HTTP_ALIGN = ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'];
const IN_PROCESS_ALIGN = ['left', 'right', 'right', 'right', 'right'];

const droppedSentence = (dropped, tolerance) =>
  dropped.length === 0
    ? `No row is more than ${tolerance * 100}% dearer after than before.`
    : `More than ${tolerance * 100}% dearer after: ${rowNames(dropped)}.`;

/** The rows a run found dearer, measured again in more rounds (`--recheck`), if it was this run's. */
function recheckPart(revisions, recheck) {
  if (
    !recheck ||
    recheck.against.sha !== revisions.against.sha ||
    recheck.recheckOf.commit !== revisions.machine.commit
  ) {
    return '';
  }
  const { inProcess = [], rows, settings, tolerance } = recheck;
  const still = droppedRows(inProcess, rows);
  const tables = [
    inProcess.length > 0
      ? mdTable(IN_PROCESS_COLUMNS, inProcess.map(inProcessCells), IN_PROCESS_ALIGN)
      : '',
    rows.length > 0 ? mdTable(HTTP_COLUMNS, rows.map(httpCells), HTTP_ALIGN) : '',
  ].filter(Boolean);
  const when = recheck.machine.date.slice(0, 16).replace('T', ' ');
  const verdict =
    still.length === 0
      ? `Measured again, none is more than ${tolerance * 100}% dearer after than before.`
      : `Measured again, still more than ${tolerance * 100}% dearer after: ${rowNames(still)}.`;
  return `
The rows found dearer, measured again the same way in ${settings.rounds} rounds (\`--recheck\`,
${when} UTC at commit \`${recheck.machine.commit}\`):

${tables.join('\n\n')}

${verdict}
`;
}

function revisionsSection(revisions, recheck) {
  const title = '## Before and after a change (`bench/revisions.bench.mjs`)';
  if (!revisions)
    return `${title}\n\nNo results yet: run \`pnpm bench:revisions --against=<revision>\`.\n`;
  const { against, settings, rows, tolerance, inProcess = [] } = revisions;
  const dropped = droppedRows(inProcess, rows);
  const inProcessTable =
    inProcess.length === 0
      ? ''
      : `\n\`receiver.receive()\` alone, in process (MemoryStore, a fresh process per measurement of
${int(revisions.loopCalls)} calls, the revisions in turn, ${settings.rounds * 2} each): the library's own work.

${mdTable(IN_PROCESS_COLUMNS, inProcess.map(inProcessCells), IN_PROCESS_ALIGN)}

Over HTTP, each adapter:
`;
  return `${title}

${measured(revisions)} The library at \`${against.sha.slice(0, 7)}\` ("before", \`--against=${against.revision}\`) and at
\`${revisions.machine.commit}\` ("after"), each adapter beside its plain hand-written receiver in ${settings.rounds} rotating rounds of
${settings.durationS} s in one run. "ratio" is the hand-written receiver's server CPU per request over ours;
"before/after" the median over rounds of the two revisions' CPU per request (above 1: cheaper after).
${inProcessTable}
${mdTable(HTTP_COLUMNS, rows.map(httpCells), HTTP_ALIGN)}

${droppedSentence(dropped, tolerance)}
${recheckPart(revisions, recheck)}`;
}

function accountsSection(accounts) {
  if (!accounts) {
    return '## Several accounts on one Receiver (`bench/accounts.bench.mjs`)\n\nNo results yet: run `pnpm bench:accounts` (or `pnpm bench`).\n';
  }
  const { cpu, memory } = accounts.results;
  const s = accounts.settings;
  return `## Several accounts on one Receiver (\`bench/accounts.bench.mjs\`)

${measured(accounts)} In process, as the telemetry bench: CPU time per \`receiver.receive()\` of a distinct, correctly signed 2 KiB
webhook (delivered to a handler, MemoryStore), ${s.rounds} rotated rounds of ${int(s.callsPerSample)} calls; the
webhooks of a Receiver of several accounts go to every account in turn, each signed with its
account's secret. "ratio" is the CPU of a Receiver of one account over this one's.

${mdTable(
  ['Receiver', 'CPU µs/receive', 'ratio'],
  cpu.map((r) => [r.variant, fixed(r.cpuMicrosPerReceive, 1), fixed(r.ratio)]),
  ['l', 'r', 'r'],
)}

Memory: ${int(memory.accountsUsed)} accounts used once each through a resolver with a cache of
${int(memory.cacheSize)}: ${int(memory.resolverCalls)} calls of \`resolve\` (one per account), and the Receiver held
${fixed(memory.heapSeveralBytes / 1048576, 1)} MiB of heap after them against ${fixed(memory.heapOneAccountBytes / 1048576, 1)} MiB for a Receiver of one account after the
same webhooks: **${int(memory.bytesPerCachedAccount)} B per cached account** (its secrets, its API client,
its counts for \`health({ account })\`), bounded by \`cacheSize\` whatever the number of accounts.
`;
}

function sinksSection(sinks) {
  const title = '## Sinks: results per second and CPU per result (`bench/sinks.bench.mjs`)';
  if (!sinks) return `${title}\n\nNo results yet: run \`pnpm bench:sinks\` (or \`pnpm bench\`).\n`;
  const s = sinks.settings;
  const v = sinks.versions;
  const servers = [
    ['redis-server', v['redis-server']],
    ['nats-server', v['nats-server']],
    ['RabbitMQ', v.rabbitmq],
    ['PostgreSQL', v.postgres],
  ]
    .filter(([, version]) => version)
    .map(([name, version]) => `${name} ${version}`)
    .join(', ');
  return `${title}

${measured(sinks)} In process, as the accounts bench: \`receiver.receive()\` of distinct, correctly signed 2 KiB
webhooks, ${int(s.concurrency)} at a time, each answered once its handler, the sink, succeeded; ${s.rounds} rotated rounds of
about ${fixed(s.sampleMs / 1000, 1)} s per variant (a number of results sized by its warm-up's rate). Real servers started by the run (${servers}; the HTTP
forward's endpoint a Node.js process that answers 204). "results/s" is wall time; "CPU µs/result"
the CPU time of the process that receives and publishes (the servers' own is not counted);
"ratio" and "CPU ratio" are the variant over its baseline, a handler that does nothing on the
same store, measured in the same rounds: MemoryStore for the queues and the HTTP forward, a
PostgresStore for the outbox, which writes in the store's own transaction. Every result sent
was counted in its sink at the end of the run. A per-round range that spans 1.00 is a
difference the machine's noise covers: on a busy machine, read the CPU columns.

${mdTable(
  [
    'variant',
    'baseline',
    'results/s',
    'ratio',
    'per-round range',
    'CPU µs/result',
    'CPU ratio',
    'CPU per-round range',
    'CPU added µs',
  ],
  sinks.results.rows.map((r) => [
    r.variant,
    r.baseline ?? '(baseline)',
    int(r.resultsPerSec),
    fixed(r.throughputRatio),
    range(r.throughputRatioRange),
    int(r.cpuMicrosPerResult),
    fixed(r.cpuRatio),
    range(r.cpuRatioRange),
    r.baseline ? int(r.cpuAddedMicros) : '–',
  ]),
  ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
)}

With ${int(s.concurrency)} results in flight, each sink's rate is bounded by its round trip: a RabbitMQ
publish waits for the broker's confirm of a persistent message (written to disk first), a NATS
publish for JetStream's acknowledgement, the HTTP forward for the endpoint's answer (and
Node.js' \`fetch\` costs most of its CPU), the outbox for the store's transaction. More in
flight (more concurrent webhooks, \`sweepConcurrency\`) raises the rate of the slow ones;
the CPU per result is what a result costs whatever the rate.
`;
}

function clientSection(client) {
  const title = '## API client: CPU per request (`bench/client.bench.mjs`)';
  if (!client)
    return `${title}\n\nNo results yet: run \`pnpm bench:client\` (or \`pnpm bench\`).\n`;
  const s = client.settings;
  return `${title}

${measured(client)} ${s.rounds} rotated rounds of ${int(s.calls)} \`getSession()\` calls, ${s.inFlight} in flight, against the
emulator in a process of its own: the client process's CPU time per call. Baseline: a
hand-written GET through node:http that reads and parses the same JSON. "ratio" is the
baseline's CPU per call over the side's (1.00 = the same work). A sweep polls with this call.

${mdTable(
  ['side', 'CPU µs/call', 'ratio', 'per-round range'],
  client.results.map((r) => [
    r.side,
    int(r.cpuMicrosPerCall),
    fixed(r.ratio),
    `${fixed(r.ratioRange[0])}–${fixed(r.ratioRange[1])}`,
  ]),
  ['l', 'r', 'r', 'r'],
)}
`;
}

/** One table row per instance count of a store at one service latency. */
function sweepRows(store) {
  return store.perCount.map((p) => {
    const speedup = store.speedups[p.instances];
    return [
      storeName(store.store),
      int(p.instances),
      int(p.pollsPerSecond),
      p.instances === 1
        ? '1.00'
        : speedup
          ? `${fixed(speedup.speedup)} (${range(speedup.roundRange)})`
          : '–',
      int(p.instanceCpuMicrosPerPoll),
      fixed(p.emulatorCpuLoad),
      fixed(p.machineBusy),
      int(p.backlogAtEnd?.due),
      typeof p.backlogAtEnd?.oldestDueAgeMs === 'number'
        ? fixed(p.backlogAtEnd.oldestDueAgeMs / 1000, 1)
        : '–',
    ];
  });
}

function sweepTable(stores) {
  return mdTable(
    [
      'store',
      'instances',
      'polls/s',
      'speedup',
      'instance CPU µs/poll',
      'emulator load',
      'machine busy',
      'backlog due at the end',
      'oldest due age at the end, s',
    ],
    stores.flatMap(sweepRows),
    ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
  );
}

/** A machine this busy with one instance had no idle cores left for a second. */
const SATURATED = 0.95;

/** Within this share of one instance's, the instances' CPU per poll counts as unchanged. */
const SAME_CPU_PER_POLL = 0.15;

/**
 * What the rows at a service latency show, from their figures: the speedup at 2 against the
 * goal, what held it back when short, and whether the CPU per poll stayed that of one
 * instance (the instances share the work rather than repeat it).
 */
function latencyFindings(stores, sweeps) {
  const goal = sweeps.goals?.speedupAt2?.factor;
  return stores
    .map((store) => {
      const one = store.perCount.find((p) => p.instances === 1);
      const two = store.perCount.find((p) => p.instances === 2);
      const atTwo = store.speedups[2]?.speedup;
      const speedups = Object.entries(store.speedups)
        .map(([count, s]) => `${fixed(s.speedup)}x at ${count}`)
        .join(', ');
      const ceiling = sweeps.settings.sweepConcurrency / (store.serviceLatencyMs / 1000);
      const short =
        typeof goal === 'number' && typeof atTwo === 'number' && atTwo < goal
          ? `, short of ${fixed(goal, 1)}x${two?.machineBusy >= SATURATED ? ` with the machine ${fixed(two.machineBusy)} busy at 2 instances (its cores, shared with every other process, were still a limit)` : ''}`
          : typeof goal === 'number' && typeof atTwo === 'number'
            ? `, above the goal's ${fixed(goal, 1)}x`
            : '';
      const cpuRatios = store.perCount
        .filter((p) => p.instances !== 1)
        .map((p) => p.instanceCpuMicrosPerPoll / one?.instanceCpuMicrosPerPoll);
      const flat = cpuRatios.every((ratio) => Math.abs(ratio - 1) <= SAME_CPU_PER_POLL);
      const cpu = `CPU per poll ${cpuRatios.map((ratio) => `${fixed(ratio)}x`).join(' and ')} one instance's${flat ? ' (no work repeated)' : ''}`;
      return `${storeName(store.store)} at ${int(store.serviceLatencyMs)} ms: ${speedups}${short}; one instance made ${int(one?.pollsPerSecond)} polls/s of the ${int(ceiling)} its ${sweeps.settings.sweepConcurrency} workers could at that latency; ${cpu}`;
    })
    .join('. ');
}

function sweepsSection(sweeps) {
  if (!sweeps) {
    return '## Sweeps across instances\n\nNo results yet: run `pnpm bench:sweeps` (or `pnpm bench`).\n';
  }
  const s = sweeps.settings;
  const v = sweeps.versions ?? {};
  const servers = [
    v.redis ? `Redis ${v.redis}` : null,
    v.postgres ? `PostgreSQL ${v.postgres}` : null,
  ].filter(Boolean);
  // Results from before service latencies were measured hold only the direct rows.
  const direct = sweeps.summary.filter((store) => !store.serviceLatencyMs);
  const delayed = sweeps.summary.filter((store) => store.serviceLatencyMs > 0);
  const cpuBound = direct
    .map((store) => {
      const busy = store.perCount.find((p) => p.instances === 1)?.machineBusy;
      if (typeof busy !== 'number') return null;
      // Saturated with one instance, the cores were shared with other work: more instances
      // then win a larger share of them, which a ratio counts as speedup.
      return busy >= SATURATED
        ? `${storeName(store.store)} ${fixed(busy)} (saturated: other processes shared the cores, and more instances took a larger share of them, which the speedup counts too)`
        : `${storeName(store.store)} ${fixed(busy)} (so at most about ${fixed(1 / busy)}x)`;
    })
    .filter(Boolean)
    .join(', ');
  const seeded = sweeps.summary
    .filter((store) => !store.serviceLatencyMs)
    .map((store) => `${storeName(store.store)} in ${fixed(store.seedingSeconds, 1)} s`)
    .join(', ');
  return `## Sweeps across instances (\`bench/sweeps.bench.mjs\`)

${measured(sweeps)} ${servers.join(' and ')} on loopback, started by the benchmark; the
emulator (\`@faceverify/emulator\`) in a process of its own, no rate limit in the way.
${int(s.sessions)} sessions created in the emulator (pending, never completed) and tracked once
per store (${seeded}). Each Receiver instance is a process of its own (built dist,
\`receiver.start()\`, sweepBatchSize ${s.sweepBatchSize}, sweepConcurrency
${s.sweepConcurrency}, sweepIntervalMs ${s.sweepIntervalMs}, \`pollScheduleMs: [0]\`: a session
polled and still pending is due again at once, so all ${int(s.sessions)} stay due). Each
configuration is measured once every instance made ${int(s.warmupPolls)} polls, until they made
${int(s.sessions)} together (about one poll of every session) or ${int(s.windowS)} s passed; polls
are counted by each instance on its client. Median of ${s.rounds} round${s.rounds > 1 ? 's' : ''},
the instance counts in alternating order${sweeps.loadAverage ? `; load average ${sweeps.loadAverage.map((x) => fixed(x)).join(' / ')} (1 / 5 / 15 min) at the end` : ''}.

"speedup" is polls/s over one instance's (the range of the rounds' own ratios beside it).
"instance CPU µs/poll" is the CPU time of all the instances (\`process.cpuUsage()\`) over their
polls: the same figure at every instance count means the instances share the sessions rather
than repeat one another's work. "emulator load" is the share of one core the emulator used,
"machine busy" the share of all cores busy (every process, from \`/proc/stat\`): near 1.00 the
machine, not the instances, set the pace. The backlog is instance 0's
\`receiver.health().store.backlog\` at the end: sessions due and not leased, and how long the
oldest of them had been due.

The emulator answering at once (on loopback, no service latency):

${sweepTable(direct)}
${sweeps.goals ? `\n${goalLines(sweeps.goals)}\n` : ''}${
  cpuBound
    ? `
These rows are CPU-bound: a poll costs the instances, the emulator and the store nothing but
CPU, and a second instance can add at most the cores' idle remainder. With one instance the
machine's ${sweeps.machine?.cpuCount ?? '–'} cores were already this busy: ${cpuBound}. So on
this machine these rows cannot show whether sweeps scale, and they cannot reach the goal while
a poll costs this much CPU.
`
    : ''
}${
  delayed.length > 0
    ? `
The same, with the service answering every \`GET /v1/sessions/:token\` after a delay, as a
remote service does over HTTPS (the instances reach the emulator through
\`bench/lib/delay-proxy.mjs\`, which holds each request that long; \`--service-latency-ms\`).
Here, as in production, an instance's pace is bounded by sweepConcurrency / latency:

${sweepTable(delayed)}

${latencyFindings(delayed, sweeps)}. These rows are not judged against the goal: they show
how instances add up when a poll waits on the service rather than on the cores, not how far
that goes on a larger machine, where the store may become the limit.
`
    : ''
}`;
}

/**
 * Not measured by a benchmark: counted exactly by the round-trip tests, which pin each figure
 * (packages/redis/test/round-trips.test.ts, packages/postgres/test/round-trips.test.ts).
 */
function roundTripsSection() {
  return `## Store round trips per webhook (counted by tests, not timed)

Each Receiver path, on a warm Receiver that tracked the session itself (except where a row says
otherwise), as **round trips waited for one after another / requests sent**: requests in flight
together (a webhook's lookup beside its digest) are one round trip.
Counted on the client (every ioredis command, every node-postgres statement, every PGlite call),
exactly, by \`packages/redis/test/round-trips.test.ts\`,
\`packages/postgres/test/round-trips.test.ts\` and, for D1 (every call on the binding, in
workerd: a statement alone or a \`batch()\`), \`packages/cloudflare/test/round-trips.workerd.test.ts\`,
which fail when a count changes. Redis Cluster
(a prefix with a hash tag: every key in one slot) counts as Redis; PostgreSQL through PgBouncer
(transaction pooling) as PostgreSQL directly. A handler's own statements are not counted.

${mdTable(
  ['path', 'Redis, Redis Cluster', 'PostgreSQL, PgBouncer', 'PGlite', 'D1'],
  [
    ['webhook of a tracked session, plain handler', '3 / 4', '3 / 4', '4 / 4', '3 / 4'],
    ['the same, the session tracked by another instance', '4 / 5', '3 / 4', '4 / 4', '3 / 4'],
    ['webhook of a tracked session, transactional handler', '–', '5 / 6', '6 / 6', '–'],
    ['webhook matched by user, confirmed with the service', '3 / 4', '3 / 4', '4 / 4', '3 / 4'],
    ['duplicate (a replay)', '1 / 2', '1 / 2', '2 / 2', '1 / 2'],
    ['rejection (bad signature)', '0 / 0', '0 / 0', '0 / 0', '0 / 0'],
    ['poll delivery (a sweep delivering one result)', '6 / 6', '5 / 5', '5 / 5', '4 / 4'],
    ['sweep of one due session', '5 / 5', '4 / 4', '4 / 4', '3 / 3'],
    [
      'each further due session of a sweep',
      '+1 request',
      '+1 request',
      '+1 request',
      '+0 (one batch)',
    ],
    ['track (start tracking a session)', '1 / 1', '5 / 5', '5 / 5', '1 / 1'],
    ['the store clock, on the first step and every 30 s', '+1 (TIME)', '+1', '–', '+1'],
    ['claim a start (`claimStart`, any outcome)', '1 / 1', '1 / 1', '1 / 1', '1 / 1'],
    [
      'the same, reusing a session another instance started, the first time',
      '2 / 2',
      '1 / 1',
      '1 / 1',
      '1 / 1',
    ],
    [
      'insert the session that ends a claim; end a claim (`endStart`)',
      '1 / 1 each',
      '1 / 1 each',
      '1 / 1 each',
      '1 / 1 each',
    ],
    [
      '`startVerification` creating a session: the claim, then track (the sum of the rows above; one round trip more than track alone)',
      '2 / 2',
      '6 / 6',
      '6 / 6',
      '2 / 2',
    ],
    [
      '`startVerification` handing the open session out again: the claim alone',
      '1 / 1',
      '1 / 1',
      '1 / 1',
      '1 / 1',
    ],
  ],
  ['l', 'r', 'r', 'r', 'r'],
)}

Where they go. A webhook remembers its digest while it looks its user up (one round trip),
attaches its result to the session and leases it in one call (\`attachAndLease\`: one Lua script,
one SQL statement), and after the handler records the delivery; with a transactional handler
that record is BEGIN, the settle (which takes the record's row lock and checks the lease in
the same statement), the handler's statements, COMMIT. On Redis a script must name every key it
touches before it runs, so that a Cluster moving a slot never sees an undeclared key; a script
that finds it must touch keys it was not given (a record's user indexes; the records an index
names) changes nothing, names them, and is run again with them. The Receiver names them up
front where it read the record before: each Store call that names a record carries the user id
the store holds it under (\`user\`), and \`findByUser\` the keys of the records the Receiver
inserted or found for that user (\`keys\`); these are hints, checked against what Redis holds, and
a wrong one costs a run, never an outcome. So \`attachAndLease\`, \`lease\` and \`settle\` cost one
round trip each; \`findByUser\` one when this instance tracked the session or read the user before
(an instance that did not must first learn the records' keys from the user's index: two), and
\`leaseDue\` three (the due keys, then their records' users, then the grant).
A sweep prunes (SQL), leases what is due, settles each session side by side, and reads the
backlog (\`dueSummary\`); a result it delivers first asks whether the user has started a newer
session (\`hasNewerSession\`, one round trip under every key's hash of the user, no record sent
back: \`event.superseded\`; on Redis two when the user has a record this instance never named
that may be newer; a webhook reuses the lookup it made beside its digest, so its counts are
unchanged); on PostgreSQL it also reads the server's timeline every 5 s (one more
statement then). PGlite runs one statement at a time, so the lookup and the digest go in turn.
With \`lookUpClearUserIds\` (for one replay window after upgrading), a webhook's user is also
looked up under the id as it is, in the same round trip: one request more, no trip more.
A duplicate is answered once its digest is found; the user lookup started beside it still
finishes, and is counted with it.
On D1 a call is one statement or one \`batch()\` (one transaction): \`attachAndLease\` is one batch
(the attach and the lease in one UPDATE where both apply, else the attach alone, and what the
record was), a sweep's lease of what is due is one batch (prunes, the due rows, the grant), and
the settles of sessions worked on side by side go to D1 together in one batch, so each further
due session adds nothing in turn and no call.
The start rows are store calls, counted by the same tests with \`measureStartPaths\` (test-support):
a claim is one Lua script on Redis, one call of the claim function on PostgreSQL and PGlite
(it locks, reads, checks and counts inside the server), one batch on D1, whatever its counters.
On Redis a claim that may hand back a session must name the record its start names: the
instance that inserted or reused it knows it; another one learns it in a first run that changes
nothing, two round trips once, then one (see "Starts" in docs/polling-and-stores.md).

The physical floor of an accepted webhook of a tracked session, outside the handler's own work:

- **Redis: 2.** One script before the handler (digest, lookup, attach and lease together: every
  key is in the user's slot, and scripts already run atomically), one after it (the settle,
  whose PUBLISH of the closing notice is already inside the script). That needs the
  correlation (docs/assumptions.md) in the script, or at least the case of a session the
  webhook names; kept in the Receiver, as it is, the floor is 3 (lookup with digest, attach with
  lease, settle), and that is what a webhook now waits for when its instance knows the user's
  records. One that does not waits for 4: the user's index holds only the records' keys, and
  correlation needs each record's state and result, so the lookup reads the index, then the
  records it names.
- **PostgreSQL: 2 with a plain handler, 3 with a transactional one** (the same caveat: 3 and 4
  with the correlation kept in the Receiver). Plain: 3, the floor with the correlation kept in
  the Receiver (lookup with digest, attach with lease as CTEs of one statement, then the settle,
  whose NOTIFY is already in it). Transactional: 5. node-postgres sends one statement at a time
  and BEGIN and COMMIT each go alone, so the transaction costs three (BEGIN, the settle, COMMIT)
  after the two of a plain handler's path. (node-postgres 8.23's \`pipeline\` mode could send
  BEGIN with the settle, but each pipelined statement is its own protocol sync: a BEGIN that
  failed would leave the settle committed alone, the result closed and its handler never run.) Reaching 4 needs the attach, the lease and the
  settle in one statement inside the transaction, before the handler runs, and on a handler's
  failure (which rolls all of it back) the result attached again outside it: a change of the
  delivery path itself, not of the store.
- **PGlite: no network.** Its "round trips" are calls into the database in the same process,
  one at a time; the same statements as PostgreSQL, so the same reductions apply.
- **D1: 2**, as PostgreSQL's plain path, and 3 with the correlation in the Receiver: what it
  waits for now.

- Goal: an accepted webhook waits for at most 2 store round trips in turn on Redis and 3 on
  PostgreSQL, outside the handler's own statements: **met on PostgreSQL with a plain handler
  (3) and on D1 (3); not met on Redis (3, and 4 for a session another instance tracked) nor
  with a transactional handler on PostgreSQL (5).**

What 2 on Redis would take. The service's webhook names no session (the row "matched by
user", the path of every Receiver with an API client), so the round trip that looks the user up
would have to take the lease (or attach the result) as well, before the Receiver has
correlated: a script that leases the user's record when it is the user's only one, open and
with a token. The Receiver would then have to give back what it took whenever its correlation
disagrees (a replay found by the digest beside it, a second session of the user read under the
id as it is): settle the lease back to the due time it had, or hold a poll back for a lease's
length. Leasing on every signed request that names a user would also let a replayed body hold
a session's polls back, once per replay. Not done: a hazard to the promise that nothing is lost
or run twice, for one round trip of a few milliseconds.
`;
}

function fuzzSection(fuzz) {
  if (!fuzz) {
    return '## Fuzz\n\nNo results yet: run `pnpm fuzz` (writes `bench/results/fuzz.json`).\n';
  }
  const statuses = [...new Set(fuzz.adapters.flatMap((a) => Object.keys(a.statuses)))].sort();
  return `## Fuzz: the HTTP surface (\`pnpm fuzz\`, \`packages/fuzz\`)

Run ${fuzz.date.slice(0, 16).replace('T', ' ')} UTC at commit \`${fuzz.commit ?? 'unknown'}\`, seed ${fuzz.seed},
${int(fuzz.requestsPerAdapter)} requests per adapter. Counts per answer ("closed" = the
connection ended without an HTTP answer, as for malformed HTTP; "aborted" = the fuzzer
itself cut the connection; "node-400"/"node-431" = Node's HTTP parser refused the request
before any adapter saw it; "other-N" = the framework's own answer, not the Receiver's, to a
request-target it cannot parse or a request without a Host header, as listed in
\`packages/fuzz/README.md\`). "handler calls" is "valid sent" plus the cases whose fate the
design leaves open (a deep extra member, \`Content-Encoding\` on a plain body) that were
answered 200; every call was checked against the requests that were valid, each once.

${mdTable(
  [
    'adapter',
    ...statuses,
    'valid sent',
    'handler calls',
    'violations',
    'heap growth MiB',
    'RSS growth MiB',
  ],
  fuzz.adapters.map((a) => [
    a.adapter,
    ...statuses.map((s) => int(a.statuses[s] ?? 0)),
    int(a.validSent),
    int(a.handlerCalls),
    int(a.violations.length),
    fixed(a.memory?.heapGrowthMiB, 1),
    fixed(a.memory?.rssGrowthMiB, 1),
  ]),
  ['l', ...statuses.map(() => 'r'), 'r', 'r', 'r', 'r', 'r'],
)}
`;
}

/** Writes BENCHMARKS.md and bench/results/ratios.svg; returns their paths. */
export function writeReport(benchDir, rootDir) {
  const results = join(benchDir, 'results');
  const verify = readJson(join(results, 'verify.json'));
  const http = readJson(join(results, 'http.json'));
  const tracker = readJson(join(results, 'tracker.json'));
  const trackerAgainst = readJson(join(results, 'tracker-against.json'));
  const edge = readJson(join(results, 'edge.json'));
  const fuzz = readJson(join(results, 'fuzz.json'));
  const latency = readJson(join(results, 'latency.json'));
  const latencyConcurrent = readJson(join(results, 'latency-concurrent.json'));
  const sweeps = readJson(join(results, 'sweeps.json'));
  const accounts = readJson(join(results, 'accounts.json'));
  const client = readJson(join(results, 'client.json'));
  const sinks = readJson(join(results, 'sinks.json'));
  const revisions = readJson(join(results, 'revisions.json'));
  const revisionsRecheck = readJson(join(results, 'revisions-recheck.json'));
  const atRest = readJson(join(results, 'at-rest.json'));
  const svgFile = join(results, 'ratios.svg');
  writeWhole(svgFile, ratioChart(chartGroups({ verify, http })));
  const latest = [verify, http, tracker, latency, sweeps]
    .filter(Boolean)
    .sort((a, b) => b.machine.date.localeCompare(a.machine.date))[0];
  const versions = {
    ...sweeps?.versions,
    ...latency?.versions,
    ...tracker?.versions,
    ...http?.versions,
    ...verify?.versions,
  };
  const faceverify = [
    'core',
    'express',
    'koa',
    'hono',
    'fastify',
    'fetch',
    'redis',
    'cloudflare',
  ].map((name) => {
    const file = join(rootDir, 'packages', name, 'package.json');
    return [`@faceverify/${name}`, readJson(file)?.version ?? '–'];
  });
  const others = Object.entries(versions)
    .filter(([name]) => !name.startsWith('@faceverify/'))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, version]) => [name === 'redis' ? 'redis-server' : name, version ?? '–']);
  const markdown = `# Benchmarks

Generated by \`pnpm bench\` (\`bench/run-all.mjs\`) from \`bench/results/*.json\`; regenerate this
page alone with \`node bench/report.mjs\`. Every figure is a ratio to a hand-written baseline
measured in the same run, in alternating rounds (how: \`bench/README.md\`), so that a busy or
slow machine moves both sides alike. Benchmarks are not tests: a slow ratio never fails a run.

## Machine

${machineSection(latest?.machine)}
The load generator, the servers and Redis share these cores, so the HTTP figures compare the
two sides under the same conditions rather than measure the best throughput of the hardware.

## Versions

${mdTable(['package', 'version'], [...faceverify, ...others])}

## Ratios at a glance

![Ratios to the hand-written baselines](bench/results/ratios.svg)

${verifySection(verify)}
${httpSection(http)}
${atRestSection(atRest)}
${revisionsSection(revisions, revisionsRecheck)}
${trackerSection(tracker)}${trackerAgainstSection(trackerAgainst)}
${sweepsSection(sweeps)}
${clientSection(client)}
${roundTripsSection()}
${latencySection(latency)}
${latencyConcurrentSection(latencyConcurrent)}
${accountsSection(accounts)}
${sinksSection(sinks)}
${edgeSection(edge)}
${fuzzSection(fuzz)}`;
  const mdFile = join(rootDir, 'BENCHMARKS.md');
  writeWhole(mdFile, markdown);
  return { mdFile, svgFile };
}
