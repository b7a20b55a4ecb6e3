/** The `idpay` CLI's parts, for programs and the repository's ops commands (`@idpay/sdk/cli`). */
export { call, must, type Answer, type ApiEvent, type Target } from './api.js';
export { defaultSecretFile, forwardedBody, listenSecret, startListener, type ListenOptions, type Listener } from './listen.js';
export { listen, parseFlags, runCli, triggerList, type ListenCommand } from './main.js';
export { TRIGGERS, trigger, type Trigger } from './triggers.js';
