/** Add-ons and upgrade insights: not implemented yet, so no route is served (EKS answers 404 for them here). */
import type { Route } from './route.js';

export const ADDON_ROUTES: readonly Route[] = [];
