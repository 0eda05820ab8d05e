// zod's namespace (`import * as z`, as the SDK writes it) keeps every locale it exports: 66 message sets,
// half of zod's code, parsed and run at every start. Nothing here sets another locale, so a bundle keeps
// English, zod's default, only.
export const englishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
      contents: 'export { default as en } from "./en.js";',
      loader: 'js',
    }));
  },
};
