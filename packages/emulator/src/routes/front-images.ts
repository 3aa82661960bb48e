import { Hono } from 'hono';
import type { EmulatorContext } from '../emulator-context.js';
import type { AppEnv } from '../http/app-env.js';
import { errorResponse } from '../http/error-response.js';
import { FRONT_IMAGE_PATH } from '../images/front-image-links.js';
import { renderFrontImagePng } from '../images/front-image-png.js';

/**
 * `GET /files/front/:id?expires=…&signature=…`: serves a front image through its signed link,
 * and refuses with `403` a link that is tampered with or past its expiry.
 */
export function frontImagesRoute(ctx: EmulatorContext): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get(`${FRONT_IMAGE_PATH}:id`, async (c) => {
    const id = c.req.param('id');
    const check = await ctx.images.check(id, c.req.query('expires'), c.req.query('signature'));
    if (check === 'invalid') {
      return errorResponse(
        c,
        403,
        'invalid_image_signature',
        'This image link is not valid: its signature does not match.',
      );
    }
    if (check === 'expired') {
      return errorResponse(c, 403, 'image_url_expired', 'This image link has expired.');
    }
    return c.body(new Uint8Array(renderFrontImagePng(id)), 200, {
      'Content-Type': 'image/png',
      // A signed link is a short-lived credential: keep it out of shared caches.
      'Cache-Control': 'private, no-store',
      'Content-Security-Policy': "default-src 'none'",
      'X-Content-Type-Options': 'nosniff',
    });
  });
  return routes;
}
