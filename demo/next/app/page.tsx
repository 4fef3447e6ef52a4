import { Review } from './review';

// A server component: it renders the client component below, which the server imports (and
// renders) too, with no DOM; the elements upgrade in the browser.
export default function Page() {
  return (
    <main>
      <h1>Next.js example</h1>
      <Review />
    </main>
  );
}
