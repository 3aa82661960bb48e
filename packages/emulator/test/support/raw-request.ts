import { request } from 'node:http';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json: () => Record<string, unknown>;
}

/**
 * One request over node:http, where the Host header and chunked bodies are under the
 * test's control (fetch sets Host itself). `chunks` are written one by one without a
 * Content-Length, so the body goes chunked.
 */
export function rawRequest(
  url: string,
  options: { method: string; headers?: Record<string, string>; chunks?: string[] },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method, headers: options.headers ?? {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body,
          json: () => JSON.parse(body) as Record<string, unknown>,
        }),
      );
    });
    req.on('error', reject);
    for (const chunk of options.chunks ?? []) req.write(chunk);
    req.end();
  });
}
