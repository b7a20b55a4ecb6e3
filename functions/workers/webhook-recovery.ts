/** Due kind `webhook.recovery` (stale deliveries): built with the webhooks issue. */
export {};
