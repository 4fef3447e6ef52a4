import { createRelay, type Relay } from 'hitl-elements/relay';

let relay: Relay | undefined;

/**
 * The relay, created at the first request rather than when the module is imported: `next build`
 * imports every route to collect its configuration, where the secrets are not set (and must not be).
 */
export function getRelay(): Relay {
  relay ??= createRelay({
    upstreamUrl: process.env.UPSTREAM_URL ?? 'http://127.0.0.1:5001/v1',
    apiKey: process.env.APP_API_KEY ?? '',
    secret: [process.env.RELAY_SECRET ?? ''], // ≥ 32 characters; [new, old] while rotating
    basePath: '/api/relay',
  });
  return relay;
}
