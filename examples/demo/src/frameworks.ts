import type { Receiver } from '@faceverify/core';
import { startServer as startExpress } from '@faceverify/example-express';
import { startServer as startHono } from '@faceverify/example-hono-node';
import { startServer as startKoa } from '@faceverify/example-koa';
import type { FrameworkName } from './options.js';

/** What the demo needs of a running example app. */
export interface ExampleServer {
  url: string;
  close(): Promise<void>;
}

export interface Framework {
  label: string;
  /** The example the receiver comes from, relative to the repository root. */
  folder: string;
  start(options: { port: number; receiver: Receiver }): Promise<ExampleServer>;
}

export const FRAMEWORKS: Record<FrameworkName, Framework> = {
  express: { label: 'Express', folder: 'examples/express', start: startExpress },
  koa: { label: 'Koa', folder: 'examples/koa', start: startKoa },
  hono: { label: 'Hono on Node.js', folder: 'examples/hono-node', start: startHono },
};
