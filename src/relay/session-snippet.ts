/**
 * The inline script a page may put before its `<script src=".../hitl-elements.js">` so the
 * session request leaves with the page instead of after the script: on a slow network that is a
 * round trip less before the form (README, "Ask for the session early"). It sends the request the
 * elements would send (`SessionSource`), keeps the answer, and hands it to the first element that
 * asks for that session URL (`globalThis.hitlSession`, declared in `elements/shared/session.ts`);
 * later grants are asked as usual.
 *
 * A string for the host page, not browser code of the package: exported with the relay (a host
 * backend renders the page that holds it); the README prints it, the demo page inlines it.
 */

/** The snippet as the README prints it, for `sessionUrl` (the same value as the elements' `session-url`). */
export function sessionSnippet(sessionUrl: string): string {
  // A JSON string is a JavaScript string; `<` escaped so no `</script>` can end the element early.
  const url = JSON.stringify(sessionUrl).replace(/</g, '\\u003c');
  return `<script>
  // Asks for the session while the script loads; the first element that names this URL takes the answer.
  (function (url) {
    url = new URL(url, document.baseURI).href;
    var asked = fetch(url, { method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: '{}' });
    asked.catch(function () {});
    window.hitlSession = function (sessionUrl) {
      if (sessionUrl !== url) return null;
      var answer = asked;
      asked = null;
      return answer;
    };
  })(${url});
</script>`;
}
