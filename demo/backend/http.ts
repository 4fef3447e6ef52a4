/** Answers of the sample host backend's own routes: never cached, errors as `{code, message, status}`. */
export const NO_STORE = { 'Cache-Control': 'no-store' };

export function problem(status: number, code: string, message: string): Response {
  return Response.json({ code, message, status }, { status, headers: NO_STORE });
}
