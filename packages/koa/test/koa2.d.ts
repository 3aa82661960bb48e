// The `koa2` alias installs Koa 2 next to Koa 3 for the tests; @types/koa describes both.
declare module 'koa2' {
  import Koa from 'koa';
  export default Koa;
}
