import { cookies } from 'next/headers';
import { getRelay } from '../../../lib/relay';

/**
 * `session-url`: the session for the signed-in user. Your own authentication decides who that is;
 * this example takes a demo cookie, and answers 401 without it.
 */
export async function POST(request: Request): Promise<Response> {
  const user = (await cookies()).get('demo-user')?.value;
  return getRelay().sessionHandler(() => user ?? null)(request);
}
