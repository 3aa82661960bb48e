import { describe, expect, it } from 'vitest';
import { summarizeBody } from '../src/answer-summary.js';

// What Express 5 answers a POST to a path where nothing is mounted, byte for byte.
const EXPRESS_404 = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Error</title>
</head>
<body>
<pre>Cannot POST /webhook</pre>
</body>
</html>
`;

describe('summarizeBody: a receiver answer in one line', () => {
  it('gives an HTML page by its text, not its markup', () => {
    expect(summarizeBody(EXPRESS_404)).toBe('an HTML page: Cannot POST /webhook');
  });

  it('keeps a short JSON answer as it is', () => {
    expect(summarizeBody('{"received":true,"untracked":true}')).toBe(
      '{"received":true,"untracked":true}',
    );
  });

  it('cuts a long body at a word boundary, with an ellipsis', () => {
    const words = Array.from({ length: 100 }, (_, index) => `word${index}`).join(' ');
    const summary = summarizeBody(words);
    expect(summary.length).toBeLessThanOrEqual(201);
    expect(summary).toMatch(/ word\d+…$/);
    expect(words.startsWith(summary.slice(0, -1))).toBe(true);
    expect(words[summary.length - 1]).toBe(' ');
  });

  it('never prints more than one line, nor a control character', () => {
    const summary = summarizeBody('line one\r\nline two\u001b[31m red\u2028');
    expect(summary).toBe('line one line two\\x1b[31m red');
  });

  it('says an empty body is empty', () => {
    expect(summarizeBody('')).toBe('(no body)');
  });

  it('takes linear time on markup that never closes', () => {
    const started = performance.now();
    summarizeBody(`<html>${'<head'.repeat(200_000)}`);
    summarizeBody(`<html><head>${'<'.repeat(200_000)}`);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
