// What every sink shares: the message it sends and the error it throws. Each sink is at its
// own subpath (`@faceverify/sinks/redis`, `/nats`, `/rabbitmq`, `/postgres`, `/http`), so an
// app loads only the client of the queue it uses.
export {
  encodeSinkMessage,
  type MessageOptions,
  type SinkFrontImageState,
  type SinkMessage,
  sinkMessage,
} from './message.js';
export { SinkError, type SinkName } from './sink-error.js';
