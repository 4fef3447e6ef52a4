/** The Emscripten build of eSpeak NG: each instance runs the `espeak-ng` command line once. */
declare module 'espeak-ng' {
  interface ESpeakModule {
    FS: { readFile(path: string): Uint8Array; writeFile(path: string, data: string | Uint8Array): void };
  }
  interface ESpeakOptions {
    arguments: string[];
    preRun?: ((module: ESpeakModule) => void)[];
    print?: (text: string) => void;
    printErr?: (text: string) => void;
    instantiateWasm?: (imports: object, done: (instance: object) => void) => object;
  }
  export default function ESpeakNg(options: ESpeakOptions): Promise<ESpeakModule>;
}
