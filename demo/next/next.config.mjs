/** @type {import('next').NextConfig} */
export default {
  // The example's types are checked by the end-to-end test with the project's own compiler
  // (TypeScript 7, which has no compiler API for Next's built-in check to use).
  typescript: { ignoreBuildErrors: true },
};
