export { data } from './test-clock.response';
