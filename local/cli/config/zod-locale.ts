/**
 * English messages for zod/mini, which installs no locale (classic zod installs English on first use;
 * without one every message is "Invalid input"). Imported for its effect by the CLI's config file, the
 * one module that still builds zod schemas (the spec, rollout and item checks are plain functions),
 * so the locale is set before anything parses. A locale set elsewhere wins, as in zod.
 */
import { en } from 'zod/locales';
import * as z from 'zod/mini';

if (!z.config().localeError) z.config(en());
