// The tables of a before-and-after run: printed by revisions.bench.mjs as it ends, and written
// to BENCHMARKS.md by report.mjs from its results, with the same columns and cells.

/** What each kind of request is called. */
export const SIGNINGS = { valid: 'accepted', wrong: 'wrongly signed', unsigned: 'unsigned' };

const fixed = (value, digits = 2) => (typeof value === 'number' ? value.toFixed(digits) : '–');
const rounds = (row) => row.changeRange.map((change) => fixed(change)).join('–');

/** `receiver.receive()` alone, in process, at both revisions. */
export const IN_PROCESS_COLUMNS = [
  'requests',
  'before µs/receive',
  'after µs/receive',
  'before/after',
  'rounds',
];

export const inProcessCells = (row) => [
  SIGNINGS[row.signing],
  fixed(row.cpuMicrosPerReceive.before, 1),
  fixed(row.cpuMicrosPerReceive.after, 1),
  fixed(row.change),
  rounds(row),
];

/** Each adapter over HTTP, at both revisions, beside the plain hand-written receiver. */
export const HTTP_COLUMNS = [
  'adapter',
  'requests',
  'hand-written µs',
  'before µs',
  'after µs',
  'ratio before',
  'ratio after',
  'before/after',
  'rounds',
];

export const httpCells = (row) => [
  row.name,
  SIGNINGS[row.signing],
  fixed(row.cpuMicrosPerRequest.plain, 0),
  fixed(row.cpuMicrosPerRequest.before, 0),
  fixed(row.cpuMicrosPerRequest.after, 0),
  fixed(row.ratioBefore),
  fixed(row.ratioAfter),
  fixed(row.change),
  rounds(row),
];

/** Rows as a sentence names them: "Koa 3, unsigned; Express 5, accepted". */
export const rowNames = (rows) =>
  rows.map((row) => `${row.name}, ${SIGNINGS[row.signing]}`).join('; ');

/** The rows more than the run's tolerance dearer after than before, the in-process ones first. */
export const droppedRows = (inProcess, rows) =>
  [...inProcess.map((row) => ({ ...row, name: 'receive() in process' })), ...rows].filter(
    (row) => row.dropped,
  );
