/** App metadata routes: `/site`, `/info`. */
import type { AppInfo, SiteSettings } from '../../protocol/index.js';
import { authenticateApp } from '../auth.js';
import type { Fixture } from '../fixture.js';
import { json } from '../http.js';
import type { Router } from '../router.js';
import type { WorkflowEngine } from '../runs/engine.js';

export interface ServiceContext {
  fixture: Fixture;
  engine: WorkflowEngine;
  pingIntervalMs: number;
}

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
}
