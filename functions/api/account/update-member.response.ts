export { member as data } from '../shapes';
