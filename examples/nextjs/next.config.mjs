/** @type {import('next').NextConfig} */
const config = {
  // `pnpm typecheck` checks this example with the rest of the repository; the build need
  // not do it again (it is the slowest step of `next build` on a small machine).
  typescript: { ignoreBuildErrors: true },
};

export default config;
