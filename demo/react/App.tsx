/**
 * A React 19 app using <human-input-form> like any other tag: `inputs` is passed as a property,
 * and `on<event-name>` props listen to the element's typed events.
 */
import { useState, type FormEvent } from 'react';
// The JSX typings of the package's tags: props, and events typed (`e.form`, `e.result`).
import type {} from 'hitl-elements/react';

interface Run {
  key: number;
  inputs: Record<string, unknown>;
}

export function App() {
  const [version, setVersion] = useState('3.0.0');
  const [run, setRun] = useState<Run>({ key: 0, inputs: { version: '3.0.0' } });
  const [seen, setSeen] = useState<string[]>([]);
  const [outputs, setOutputs] = useState<Record<string, unknown> | null>(null);
  const note = (line: string) => setSeen((lines) => [...lines, line]);

  const startRun = (event: FormEvent) => {
    event.preventDefault();
    setSeen([]);
    setOutputs(null);
    // A new key mounts a new element, which starts a new run with these inputs.
    setRun((previous) => ({ key: previous.key + 1, inputs: { version } }));
  };

  return (
    <main>
      <h1>React 19 example</h1>
      <form className="toolbar" onSubmit={startRun}>
        <label>
          Version to release <input value={version} onChange={(e) => setVersion(e.target.value)} />
        </label>
        <button>Start a new run</button>
      </form>
      <human-input-form
        key={run.key}
        session-url="/api/session"
        inputs={run.inputs}
        onform-shown={() => note('Form shown')}
        onsubmitted={(e) => note(`Submitted with action “${e.action}”`)}
        onrun-finished={(e) => {
          note(`Run finished: ${e.result.status}`);
          setOutputs(e.result.outputs);
        }}
      />
      <section aria-labelledby="seen-title">
        <h2 id="seen-title">What the app saw</h2>
        <ol id="seen">
          {seen.map((line, i) => (
            <li key={i}>{line}</li>
          ))}
        </ol>
        {outputs && <pre id="outputs">{JSON.stringify(outputs, null, 2)}</pre>}
      </section>
    </main>
  );
}
