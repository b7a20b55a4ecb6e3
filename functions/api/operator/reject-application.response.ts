export { application as data } from '../shapes';
