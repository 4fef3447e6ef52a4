import { getRelay } from '../../../../lib/relay';

// The upstream's own paths under /api/relay: run events stream through (SSE), uploads too.
const relay = (request: Request): Promise<Response> => getRelay().fetch(request);

export { relay as GET, relay as POST, relay as PUT, relay as PATCH, relay as DELETE, relay as OPTIONS };
