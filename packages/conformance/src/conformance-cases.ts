import type { ConformanceCase } from './case.js';
import { accountCases } from './cases/account-cases.js';
import { bodyLimitCases } from './cases/body-limit-cases.js';
import { bodyParserCases } from './cases/body-parser-cases.js';
import { bodyTimeoutCases } from './cases/body-timeout-cases.js';
import { deliveryCases } from './cases/delivery-cases.js';
import { passThroughCases } from './cases/pass-through-cases.js';
import { routingCases } from './cases/routing-cases.js';
import { signatureCases } from './cases/signature-cases.js';
import type { ConformanceTarget, MountStyle } from './target.js';

/**
 * The behaviour every adapter must show, as one table. Each case starts a real server for
 * `target` on 127.0.0.1, mounted as `mount` says, and talks to it over HTTP.
 *
 * @example
 * for (const mount of ['use', 'route'] as const) {
 *   describe(`Express 5, ${mount}`, () => {
 *     for (const row of conformanceCases(expressTarget, mount)) it(row.name, row.run);
 *   });
 * }
 */
export function conformanceCases(target: ConformanceTarget, mount: MountStyle): ConformanceCase[] {
  return [
    ...signatureCases(target, mount),
    ...routingCases(target, mount),
    ...bodyLimitCases(target, mount),
    ...bodyTimeoutCases(target, mount),
    ...deliveryCases(target, mount),
    ...accountCases(target, mount),
    ...bodyParserCases(target, mount),
    ...(target.passThrough === false ? [] : passThroughCases(target, mount)),
  ];
}
