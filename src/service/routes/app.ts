/** App metadata routes: `/site`, `/info`, `/parameters`, `/meta` (dify-wire.md §5). */
import type { AppInfo, AppParameters, SiteSettings } from '../../protocol/index.js';
import { authenticateApp } from '../auth.js';
import type { ServiceContext } from '../context.js';
import { json } from '../http.js';
import type { Router } from '../router.js';
import { userInputForm } from '../run-inputs.js';

export type { ServiceContext } from '../context.js';

export function appRoutes(router: Router<ServiceContext>): void {
  router.on('GET', '/site', (request, _p, _u, { fixture }) => {
    const app = authenticateApp(request, fixture);
    const site: SiteSettings = app.site;
    return json(site);
  });

  router.on('GET', '/info', (request, _p, _u, { fixture }) => {
    const app = authenticateApp(request, fixture);
    const info: AppInfo = { name: app.name, description: app.description, tags: app.tags, mode: app.mode, author_name: app.author_name };
    return json(info);
  });

  router.on('GET', '/parameters', (request, _p, _u, { fixture }) => {
    const app = authenticateApp(request, fixture);
    const { text_to_speech: tts, ...rest } = app.parameters;
    const parameters: AppParameters = {
      ...rest,
      // The voice catalogue is the fixture's business; the wire shows the chosen voice only.
      text_to_speech: { enabled: tts.enabled, voice: tts.voice, language: tts.language, autoPlay: tts.autoPlay },
      user_input_form: userInputForm(app),
    };
    return json(parameters);
  });

  router.on('GET', '/meta', (request, _p, _u, { fixture }) => {
    authenticateApp(request, fixture);
    return json({ tool_icons: {} });
  });
}
