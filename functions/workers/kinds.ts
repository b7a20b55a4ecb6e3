/**
 * Every due kind's worker, registered in one place. Each feature adds its kind here
 * (approval expiry, recurring run, settlement, stale webhook delivery).
 */
import './webhook-recovery';
import './billing-expiry';
import './settlement';
import './refund-complete';
import './recurring-run';
import './sandbox-bank';
