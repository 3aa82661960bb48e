import type { ReceiverTelemetry } from '@faceverify/core';
import { openTelemetry } from '@faceverify/core/opentelemetry';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import type { RequestHandler } from 'express';

/** The Receiver's metrics, served in Prometheus' text format. */
export interface PrometheusMetrics {
  /** For `createReceiver({ telemetry })`. */
  telemetry: ReceiverTelemetry;
  /** `GET /metrics`: what a Prometheus scrape reads. */
  serve: RequestHandler;
  shutdown(): Promise<void>;
}

/**
 * A meter provider of this app's own, read by the Prometheus exporter on each scrape. An app
 * that already runs the OpenTelemetry Node SDK passes `openTelemetry()` instead, and the
 * Receiver reports through the SDK's global providers.
 */
export function createPrometheusMetrics(): PrometheusMetrics {
  // The app serves /metrics itself, on its own port, instead of the exporter's server.
  const exporter = new PrometheusExporter({ preventServerStart: true });
  const meterProvider = new MeterProvider({ readers: [exporter] });
  return {
    telemetry: openTelemetry({ meterProvider }),
    serve: (req, res) => exporter.getMetricsRequestHandler(req, res),
    shutdown: () => meterProvider.shutdown(),
  };
}
