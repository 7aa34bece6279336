// An ES module gulpfile, as gulp 5 reads them.
import gulp from 'gulp';

const { series } = gulp;

export async function scripts() {}

export function styles(cb) {
  cb();
}
styles.description = 'Compile the styles';

const serve = (cb) => cb();

export const build = series(scripts, styles);
export { serve as dev };
export default build;
export const version = '1.2.3';
