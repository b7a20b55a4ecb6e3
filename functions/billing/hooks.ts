/**
 * Every module that registers a billing outcome hook (`onBillingSettled`), loaded in one
 * place. Entry points that settle billings import this file. Add one import line per
 * feature (e.g. `import '../recurring/outcome';`).
 */
import '../recurring/outcome';

export {};
