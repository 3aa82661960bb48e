// Entry bundled as a module Worker for workerd: each request runs every portable case and
// answers with the lines a process entry would print, as JSON. Nothing runs at startup, since
// workerd forbids timers and most I/O outside a request.
import { suites } from 'faceverify:portable-suites';
import { runSuites } from './run-cases.mjs';

export default {
  async fetch() {
    const lines = [];
    const result = await runSuites(suites, (line) => lines.push(line));
    return Response.json({ ...result, lines });
  },
};
