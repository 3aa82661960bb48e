// The `fastify5.0` alias installs Fastify 5.0.0, the lowest release of the peer range, next
// to the latest for the conformance table; the latest's types describe both.
declare module 'fastify5.0' {
  import Fastify from 'fastify';
  export default Fastify;
}
