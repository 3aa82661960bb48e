import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Receiver } from '@faceverify/core';
import { verificationWebhook } from '@faceverify/express';
import express from 'express';

/** A receiving app as an integrator writes it: Express with the webhook middleware first. */
export interface ReceiverServer {
  url: string;
  webhookUrl: string;
  close(): Promise<void>;
}

export async function startReceiverServer(receiver: Receiver): Promise<ReceiverServer> {
  const app = express();
  app.use(verificationWebhook(receiver));
  app.use(express.json());
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    webhookUrl: `${url}/webhooks/verification`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
