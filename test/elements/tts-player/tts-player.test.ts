import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import '../../../src/elements/tts-player/define.js';
import type { TtsPlayer } from '../../../src/elements/tts-player/tts-player.js';
import type { CompanionEvent } from '../../../src/elements/shared/companion-events.js';
import { expectNoAxeViolations } from '../helpers/axe.js';
import { until } from '../helpers/wait.js';
import { mediaSourceTakes, skipBecause } from '../helpers/engine.js';
import { chat, newUser } from '../conversation-list/chat-app.js';
import { chunked, tone } from './audio-bytes.js';

const $ = (el: Element, selector: string) => el.shadowRoot!.querySelector<HTMLButtonElement>(selector)!;
/** Long enough that the service is still synthesizing when the first sentences play. */
const LONG = 'The parcel left our warehouse this morning. It travels by road to the sorting centre. From there a courier takes it to your door. Expect it within three working days.';

describe('<tts-player>', function () {
  this.timeout(30_000);

  it('fits a 300 px column: its narrowest layout is under 300 px, and nothing in it sticks out', async () => {
    const url = await newUser();
    const wrap = await fixture<HTMLDivElement>(html`<div style="width: min-content"><tts-player session-url=${url} text="Hello."></tts-player></div>`);
    await (wrap.firstElementChild as TtsPlayer).updateComplete;
    expect(wrap.getBoundingClientRect().width).to.be.below(300);
    wrap.style.width = '300px';
    const box = wrap.firstElementChild!.getBoundingClientRect();
    expect(box.width).to.be.at.most(300);
    for (const part of wrap.firstElementChild!.shadowRoot!.querySelectorAll('[part]')) expect(part.getBoundingClientRect().right, part.getAttribute('part')!).to.be.at.most(box.right);
  });

  it('starts playing MP3 while it still streams, where Media Source takes MP3', async function () {
    if (!mediaSourceTakes('audio/mpeg')) skipBecause(this, "this engine's Media Source does not take audio/mpeg: the player downloads the answer whole, tested below");
    const url = await newUser();
    const el = await fixture<TtsPlayer>(html`<tts-player session-url=${url} text=${LONG}></tts-player>`);
    const played = oneEvent(el, 'play');
    $(el, '[part=play]').click();
    expect(el.matches(':state(loading)')).to.equal(true);
    await played;
    // The audio advances while the rest of the answer is still arriving.
    await until(() => el.currentTime > 0.05 && el.matches(':state(streaming)'), 'playback during the stream', 15_000);
    expect(el.matches(':state(playing)')).to.equal(true);
    el.stop();
  });

  it('plays, pauses, resumes and stops', async () => {
    const url = await newUser();
    const el = await fixture<TtsPlayer>(html`<tts-player session-url=${url} text=${LONG}></tts-player>`);
    expect(el.matches(':state(idle)')).to.equal(true);
    expect($(el, '[part=play]').getAttribute('aria-label')).to.equal('Play');
    await expectNoAxeViolations(el);

    const status = () => el.shadowRoot!.querySelector('[part=status]')!.textContent!.replace(/\u200b/g, '');
    const played = oneEvent(el, 'play');
    $(el, '[part=play]').click();
    expect(el.matches(':state(loading)')).to.equal(true);
    // Waiting for the audio is said, and Play is unavailable meanwhile (presses are ignored).
    await el.updateComplete;
    expect(status()).to.equal('Loading…');
    expect($(el, '[part=play]').getAttribute('aria-disabled')).to.equal('true');
    await played;
    await until(() => el.currentTime > 0.05, 'playback', 15_000);
    expect(el.matches(':state(playing)')).to.equal(true);
    await el.updateComplete;
    expect($(el, '[part=play]').getAttribute('aria-label')).to.equal('Pause');
    expect($(el, '[part=play]').getAttribute('aria-disabled')).to.equal('false');
    expect(status()).to.equal('Playing.');
    await until(() => el.shadowRoot!.querySelector<HTMLProgressElement>('[part=progress]')!.value > 0, 'the progress');
    expect(el.shadowRoot!.querySelector('[part=time]')!.textContent).to.match(/^0:0\d \/ 0:\d\d$/);

    $(el, '[part=play]').click();
    await until(() => el.matches(':state(paused)'), 'the pause');
    await el.updateComplete;
    expect(status()).to.equal('Paused.');
    // WebKit settles the position some milliseconds after its pause event (longer on a busy
    // machine): the paused position is the one two reads 50 ms apart agree on.
    let at = -1;
    await until(
      async () => {
        const before = el.currentTime;
        await new Promise((r) => setTimeout(r, 50));
        return Math.abs(el.currentTime - before) < 0.002 && (at = el.currentTime) >= 0;
      },
      'the paused position to settle',
      3000,
    );
    // Paused stays put: playing on would move it 0.3 s. WebKit still nudged a settled position by
    // 21 ms once (media appended while paused), so the bound is well under a playing step.
    await new Promise((r) => setTimeout(r, 300));
    expect(el.currentTime).to.be.closeTo(at, 0.1);
    $(el, '[part=play]').click();
    await until(() => el.currentTime > at + 0.2, 'playback to resume');

    $(el, '[part=stop]').focus();
    $(el, '[part=stop]').click();
    await until(() => el.matches(':state(idle)'), 'the stop');
    // Stop disables itself; the keyboard focus moves to Play rather than to the page.
    expect(el.shadowRoot!.activeElement).to.equal($(el, '[part=play]'));
    expect(el.currentTime).to.equal(0);
    expect(el.paused).to.equal(true);
    await until(() => !el.matches(':state(streaming)'), 'the stream to end', 15_000);
    expect(el.duration).to.be.greaterThan(3);
  });

  it('voices a message by message-id, in WAV and Ogg voices too, and plays to the end', async () => {
    const url = await newUser();
    const { message_id } = await chat(url, 'Hi');
    for (const voice of ['fable', 'nova']) {
      const el = await fixture<TtsPlayer>(html`<tts-player session-url=${url} message-id=${message_id} voice=${voice} autoplay></tts-player>`);
      await until(() => el.currentTime > 0.3, `the ${voice} voice to play`, 15_000);
      expect(el.duration).to.be.greaterThan(1);
      if (voice === 'nova') {
        await oneEvent(el, 'ended');
        await until(() => el.matches(':state(ended)'), 'the ended state');
        await el.updateComplete;
        expect(el.shadowRoot!.querySelector('[part=status]')!.textContent).to.equal('Finished.');
      }
      el.remove();
    }
  });

  it('plays an ADTS AAC answer with no error shown: streamed, or whole where the engine refuses it mid-stream (WebKitGTK)', async () => {
    const url = await newUser();
    const aac = await tone('tone.aac');
    // The service answers MP3, WAV or Ogg; an upstream may answer AAC, as this stand-in does.
    const fetch = window.fetch;
    window.fetch = async (input, init) => {
      const response = await fetch(input, init);
      return String(input instanceof Request ? input.url : input).endsWith('/text-to-audio') ? new Response(chunked(aac), { headers: { 'Content-Type': 'audio/aac' } }) : response;
    };
    const el = document.createElement('tts-player');
    const errors: unknown[] = [];
    el.addEventListener('companion-error', (e) => errors.push(e.detail));
    try {
      Object.assign(el, { sessionUrl: url, text: 'Hello.', autoplay: true });
      document.body.append(el);
      await until(() => el.currentTime > 0.3, 'the AAC answer to play', 15_000);
      await until(() => !el.matches(':state(streaming)'), 'the answer to be in');
      expect(errors).to.deep.equal([]);
      expect(el.matches(':state(error)') || !!el.shadowRoot!.querySelector('[part=error]')).to.equal(false);
    } finally {
      window.fetch = fetch;
      el.remove();
    }
  });

  it('plays one player at a time', async () => {
    const url = await newUser();
    const box = await fixture<HTMLElement>(html`<div>
      <tts-player session-url=${url} text=${LONG}></tts-player><tts-player session-url=${url} text="A second voice on the same page."></tts-player>
    </div>`);
    const [first, second] = [...box.querySelectorAll('tts-player')] as TtsPlayer[];
    $(first!, '[part=play]').click();
    await until(() => first!.currentTime > 0.1, 'the first player', 15_000);
    $(second!, '[part=play]').click();
    await until(() => second!.currentTime > 0.1, 'the second player', 15_000);
    expect(first!.paused).to.equal(true);
    // The pause event (which sets the state) follows the paused flag in a task of its own.
    await until(() => first!.matches(':state(paused)'), 'the first player to show it paused');
  });

  it('offers a tap to play when the browser blocks autoplay', async () => {
    const url = await newUser();
    // The test browsers are started with autoplay allowed; refuse the first play() as a browser would.
    const play = HTMLMediaElement.prototype.play;
    HTMLMediaElement.prototype.play = function () {
      HTMLMediaElement.prototype.play = play;
      return Promise.reject(new DOMException('play() failed because the user did not interact with the document first.', 'NotAllowedError'));
    };
    const el = document.createElement('tts-player');
    const blocked = oneEvent(el, 'autoplay-blocked') as Promise<CompanionEvent<DOMException>>;
    Object.assign(el, { sessionUrl: url, text: 'Autoplay is not allowed here.', autoplay: true });
    document.body.append(el);
    try {
      expect((await blocked).detail.name).to.equal('NotAllowedError');
      await el.updateComplete;
      expect(el.matches(':state(blocked)')).to.equal(true);
      expect($(el, '[part=play]').textContent).to.contain('Tap to play');
      expect($(el, '[part=play]').getAttribute('aria-label')).to.equal('Tap to play');
      expect(el.shadowRoot!.querySelector('[part=status]')!.textContent).to.equal('Tap to play');
      await expectNoAxeViolations(el);
      $(el, '[part=play]').click();
      await until(() => el.currentTime > 0.1, 'playback after the tap', 15_000);
      expect(el.matches(':state(playing)')).to.equal(true);
    } finally {
      HTMLMediaElement.prototype.play = play;
      el.remove();
    }
  });

  it('without a session-url, says so and offers nothing to stop', async () => {
    const el = await fixture<TtsPlayer>(html`<tts-player text="Hello."></tts-player>`);
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('[part=error]')!.textContent).to.contain('session-url');
    expect($(el, '[part=stop]').disabled).to.equal(true);
  });

  it('shows what the service refuses, in the page language', async () => {
    const url = await newUser();
    const box = await fixture<HTMLElement>(html`<div lang="ja"><tts-player session-url=${url} text="   "></tts-player></div>`);
    const el = box.querySelector('tts-player')!;
    await until(() => $(el, '[part=play]').getAttribute('aria-label') === '再生', 'the Japanese terms');
    const error = oneEvent(el, 'companion-error') as Promise<CompanionEvent<{ code: string; status: number }>>;
    $(el, '[part=play]').click();
    expect((await error).detail).to.include({ code: 'invalid_param', status: 400 });
    await el.updateComplete;
    expect(el.matches(':state(error)')).to.equal(true);
    expect(el.shadowRoot!.querySelector('[part=error]')!.textContent).to.equal('Text is required');
    await expectNoAxeViolations(el);
    // Retry asks again (and is refused again).
    const again = oneEvent(el, 'companion-error');
    $(el, '[part=retry]').click();
    await again;
  });
});
