'use client';
// Both define modules are imported on the server as well, where they register nothing.
import 'hitl-elements/human-input-form/define';
import 'hitl-elements/conversation-list/define';
import type {} from 'hitl-elements/react';
import { useEffect, useState } from 'react';

export function Review() {
  const [inBrowser, setInBrowser] = useState(false);
  const [outputs, setOutputs] = useState<Record<string, unknown> | null>(null);
  // The elements start their work as soon as they upgrade: rendered in the browser only, they get
  // `inputs` (a property) from React before that. Server-rendered, they would upgrade before hydration.
  useEffect(() => setInBrowser(true), []);
  if (!inBrowser) return <p>Loading the review…</p>;
  return (
    <>
      <human-input-form session-url="/api/session" inputs={{ version: '3.0.0' }} onrun-finished={(e) => setOutputs(e.result.outputs)} />
      {outputs && <pre id="outputs">{JSON.stringify(outputs, null, 2)}</pre>}
      <h2>Conversations</h2>
      <conversation-list session-url="/api/session" />
    </>
  );
}
