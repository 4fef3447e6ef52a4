import { html, nothing, svg, type PropertyDeclarations, type TemplateResult } from 'lit';
import { clock, Companion } from '../shared/companion.js';
import { toggleState } from '../shared/states.js';
import { feed } from './audio-source.js';
import { AutoplayBlockedEvent } from './events.js';
import { styles } from './tts-player.styles.js';
import { TEXT_TO_AUDIO_PATH } from '../../protocol/companion-paths.js';

const icon = (d: string) => svg`<svg viewBox="0 0 24 24" aria-hidden="true"><path d=${d} /></svg>`;
const PLAY = icon('M8 5v14l11-7z');
const PAUSE = icon('M6 19h4V5H6zm8-14v14h4V5z');
const STOP = icon('M6 6h12v12H6z');

/** The player playing now: one at a time on the page. */
let current: TtsPlayer | undefined;

/**
 * Reads a message's answer (or any text) aloud with the app's text-to-speech voice. MP3 (and ADTS
 * AAC) starts playing while it still streams in, where the engine's Media Source takes the format;
 * other containers, and engines without that, play once the answer has arrived.
 *
 * @summary A play / pause / stop player for the app's text to speech.
 * @tag tts-player
 *
 * @attr {string} session-url - URL of the host backend's session endpoint; elements naming the same URL share one session and one fetch of the app's web settings. Required: without it the element shows an error (`companion-error` code `session_url_missing`).
 *
 * @fires {Event} play - Playback started (or resumed).
 * @fires {Event} pause - Playback paused or stopped.
 * @fires {Event} ended - Playback reached the end.
 * @fires {AutoplayBlockedEvent} autoplay-blocked - The browser refused to start without a user gesture; the player waits for a tap (`AutoplayBlockedEvent`, `detail` the browser's error).
 * @fires {CompanionErrorEvent} companion-error - A failure, with `{code, message, status}` as `error` and `detail` (`CompanionErrorEvent`).
 *
 * @csspart container - The outer box.
 * @csspart row - The row of controls.
 * @csspart play - The play / pause button (says "Tap to play" when autoplay was blocked).
 * @csspart stop - The stop button.
 * @csspart progress - The playback position (`<progress>`).
 * @csspart time - The position and length, `m:ss / m:ss`.
 * @csspart error - An error message.
 * @csspart retry - The retry button.
 * @csspart status - The announced status line.
 *
 * @cssproperty --hitl-accent - Accent colour (playing button, progress, focus rings); default the app's `chat_color_theme`.
 * @cssproperty --hitl-accent-contrast - Icon colour on the accent; default black or white, whichever reads better on the app's colour (white on the default blue).
 * @cssproperty --hitl-border-color - Borders.
 * @cssproperty --hitl-radius - Corner radius.
 * @cssproperty --hitl-padding - Padding of the box.
 * @cssproperty --hitl-background - Background of the box.
 * @cssproperty --hitl-button-background - Background of buttons.
 * @cssproperty --hitl-font - Font shorthand.
 * @cssproperty --hitl-color - Text colour.
 * @cssproperty --hitl-muted-color - Colour of the time and the status line.
 * @cssproperty --hitl-error-color - Colour of errors.
 *
 * @cssstate idle - Nothing playing (not started, or stopped).
 * @cssstate loading - Waiting for the first audio.
 * @cssstate playing - Playing.
 * @cssstate paused - Paused.
 * @cssstate ended - Played to the end.
 * @cssstate blocked - Autoplay was blocked; a tap starts it.
 * @cssstate error - The audio could not be had; a retry button is shown.
 * @cssstate streaming - Audio is still arriving (alongside the states above).
 */
export class TtsPlayer extends Companion {
  static override styles = styles;
  static override properties: PropertyDeclarations = {
    messageId: { attribute: 'message-id' },
    text: {},
    voice: {},
    autoplay: { type: Boolean },
  };

  protected override reloadOn = ['sessionUrl', 'messageId', 'text', 'voice'];
  readonly #audio = new Audio();
  /** The audio's arrival, once asked for. */
  #loading: Promise<void> | undefined;
  #abort = new AbortController();

  /** The message whose answer is read (wins over `text`). */
  messageId = '';
  /** The text to read when there is no `message-id`. */
  text = '';
  /** A voice of the app's speech provider; default the app's configured voice. */
  voice = '';
  /** Starts reading as soon as there is something to read. */
  autoplay = false;

  /** Seconds played. */
  get currentTime(): number {
    return this.#audio.currentTime;
  }

  /** Seconds in all, once known (`NaN` or `Infinity` before). */
  get duration(): number {
    return this.#audio.duration;
  }

  get paused(): boolean {
    return this.#audio.paused;
  }

  constructor() {
    super();
    const audio = this.#audio;
    for (const type of ['timeupdate', 'durationchange', 'progress']) audio.addEventListener(type, () => this.requestUpdate());
    for (const type of ['play', 'pause', 'ended']) {
      audio.addEventListener(type, () => {
        if (type === 'play') {
          if (current !== this) current?.pause();
          current = this;
        }
        if (this.state !== 'idle' || type === 'play') {
          const state = type === 'play' ? 'playing' : audio.ended ? 'ended' : 'paused';
          // Said as well as shown, once (the end comes as pause and ended): autoplay, the end and a
          // pause from elsewhere (another player starting) are news to a screen reader user.
          if (state !== this.state) this.say(this.t[state]);
          this.set(state);
        }
        this.dispatchEvent(new Event(type));
      });
    }
    audio.addEventListener('error', () => this.#loading && this.fail(new Error(audio.error?.message || this.t.error)));
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.pause();
  }

  /** Forgets the audio; with `autoplay`, starts reading the new text. */
  override reload(): Promise<void> {
    this.#reset();
    return this.autoplay ? this.play() : Promise.resolve();
  }

  /** Plays: asks for the audio the first time, then resumes (or starts over after the end). */
  async play(): Promise<void> {
    if (!this.sessionUrl || (!this.messageId && !this.text)) return;
    this.failure = '';
    this.note = '';
    if (this.#loading) {
      if (this.#audio.src) this.#start();
      return;
    }
    this.set('loading');
    this.note = this.t.loading;
    const signal = this.#abort.signal;
    let started = false;
    this.#streaming(true);
    this.#loading = (async () => {
      try {
        const json = this.messageId ? { message_id: this.messageId, voice: this.voice || undefined } : { text: this.text, voice: this.voice || undefined };
        const response = await (await this.api()).send('POST', TEXT_TO_AUDIO_PATH, { json, signal });
        // A fallback that replaced audio which was playing starts it again (`resume`).
        await feed(this.#audio, response, (resume) => (started && !resume) || ((started = true), this.#start()));
      } catch (error) {
        if (signal.aborted) return;
        this.#loading = undefined;
        this.fail(error);
      }
      if (!signal.aborted) this.#streaming(false);
    })();
    return this.#loading;
  }

  pause(): void {
    this.#audio.pause();
  }

  /** Pauses and goes back to the start (or gives up waiting for the audio). */
  stop(): void {
    if (this.state === 'loading') return this.#reset();
    this.#audio.pause();
    this.#audio.currentTime = 0;
    this.set('idle');
  }

  protected override retry(): Promise<void> {
    this.#reset();
    return this.play();
  }

  #start(): void {
    this.#audio.play().catch((error: DOMException) => {
      if (error.name === 'NotAllowedError') {
        this.note = this.t.tapToPlay;
        this.set('blocked');
        this.dispatchEvent(new AutoplayBlockedEvent(error));
      } else if (error.name !== 'AbortError') this.fail(error);
    });
  }

  #reset(): void {
    this.#abort.abort();
    this.#abort = new AbortController();
    this.#loading = undefined;
    this.#streaming(false);
    const audio = this.#audio;
    audio.pause();
    if (audio.src) URL.revokeObjectURL(audio.src);
    audio.removeAttribute('src');
    audio.load();
    this.failure = '';
    this.note = '';
    this.set('idle');
  }

  #streaming(on: boolean): void {
    toggleState(this.internals, 'streaming', on);
  }

  #onStop(): void {
    this.stop();
    // Stop disables itself: Play takes the keyboard focus instead of the page.
    this.renderRoot.querySelector<HTMLElement>('[part=play]')!.focus();
  }

  protected override render(): TemplateResult {
    const t = this.t;
    const audio = this.#audio;
    const playing = !audio.paused;
    const blocked = this.state === 'blocked';
    const buffered = audio.buffered.length ? audio.buffered.end(audio.buffered.length - 1) : 0;
    const total = Number.isFinite(audio.duration) ? audio.duration : buffered;
    const time = `${clock(audio.currentTime)} / ${clock(total)}`;
    return this.frame(html`<div part="row">
      <button
        part="play"
        aria-label=${blocked ? t.tapToPlay : playing ? t.pause : t.play}
        aria-disabled=${this.state === 'loading'}
        ?data-primary=${blocked}
        ?disabled=${!this.messageId && !this.text}
        @click=${() => (playing ? this.pause() : this.play())}
      >
        ${playing ? PAUSE : PLAY}${blocked ? ` ${t.tapToPlay}` : nothing}
      </button>
      <button
        part="stop"
        aria-label=${t.stop}
        ?disabled=${!this.state || this.state === 'idle' || this.state === 'error'}
        @click=${this.#onStop}
      >
        ${STOP}
      </button>
      <progress part="progress" aria-label=${t.progress} aria-valuetext=${time} max=${total || 1} .value=${audio.currentTime}></progress>
      <span part="time">${time}</span>
    </div>`);
  }
}

declare global {
  interface HTMLElementEventMap {
    'autoplay-blocked': AutoplayBlockedEvent;
  }
}
