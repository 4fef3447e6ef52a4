/** App metadata routes: `/site`, `/info`, `/parameters`, `/meta` (dify-wire.md §5). */
import { APP_OPERATIONS, type AppInfo, type AppParameters, type SiteSettings } from '../../protocol/index.js';
import type { ServiceContext } from '../context.js';
import { json } from '../http.js';
import type { Router } from '../router.js';
import { userInputForm } from '../run-inputs.js';
import { appRoute } from './app-route.js';

export type { ServiceContext } from '../context.js';

export function appRoutes(router: Router<ServiceContext>): void {
  const route = appRoute(router);
  route(APP_OPERATIONS.getSite, {}, ({ app }) => {
    const site: SiteSettings = app.site;
    return json(site);
  });

  route(APP_OPERATIONS.getInfo, {}, ({ app }) => {
    const info: AppInfo = { name: app.name, description: app.description, tags: app.tags, mode: app.mode, author_name: app.author_name };
    return json(info);
  });

  route(APP_OPERATIONS.getParameters, {}, ({ app }) => {
    const { text_to_speech: tts, ...rest } = app.parameters;
    const parameters: AppParameters = {
      ...rest,
      // The voice catalogue is the fixture's business; the wire shows the chosen voice only.
      text_to_speech: { enabled: tts.enabled, voice: tts.voice, language: tts.language, autoPlay: tts.autoPlay },
      user_input_form: userInputForm(app),
    };
    return json(parameters);
  });

  // `AppService.get_app_meta`. The console API's URL is the real service's `CONSOLE_API_URL`, empty
  // (same origin) by default; the embedded service has no console.
  route(APP_OPERATIONS.getMeta, {}, ({ app }) =>
    json({
      tool_icons: Object.fromEntries(
        app.tools.map((t) => [t.tool_name, t.provider_type === 'builtin' ? `/console/api/workspaces/current/tool-provider/builtin/${t.provider_id}/icon` : (t.icon ?? { background: '#252525', content: '😁' })]),
      ),
    }),
  );
}
