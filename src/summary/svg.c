/* svg.c - the few kinds of plot the summary draws, as plain SVG: bars,
 * columns over bins, shaded grids and time lanes.  Every plot has a
 * bounded number of elements (its bins), whatever the size of the log,
 * and text is escaped so that every document is well-formed XML. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "summary/summary_int.h"

#define W 720
#define FONT "font-family=\"sans-serif\" font-size=\"11\""

/* Text as XML character data: markup characters escaped, characters that
 * XML forbids and bytes that are not UTF-8 shown as '?'. */
void dfs_xml_text(dfs_buf *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = p[i];
		if (c == '<')
			dfs_buf_adds(out, "&lt;");
		else if (c == '>')
			dfs_buf_adds(out, "&gt;");
		else if (c == '&')
			dfs_buf_adds(out, "&amp;");
		else if (c == '"')
			dfs_buf_adds(out, "&quot;");
		else if (c < 0x20 && c != '\n' && c != '\t')
			dfs_buf_addc(out, '?');
		else if (c < 0x80)
			dfs_buf_addc(out, (char)c);
		else {
			/* a whole, shortest UTF-8 sequence passes; anything else is '?' */
			size_t n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
			bool ok = n > 0 && i + n <= len;
			for (size_t k = 1; ok && k < n; k++)
				ok = (p[i + k] & 0xc0) == 0x80;
			if (ok && n == 3 && c == 0xe0 && p[i + 1] < 0xa0)
				ok = false;
			if (ok && n == 3 && c == 0xed && p[i + 1] >= 0xa0)
				ok = false;
			if (ok && n == 4 && ((c == 0xf0 && p[i + 1] < 0x90) ||
			                     (c == 0xf4 && p[i + 1] >= 0x90)))
				ok = false;
			if (ok && n == 3 && c == 0xef && p[i + 1] == 0xbf && p[i + 2] >= 0xbe)
				ok = false;   /* U+FFFE, U+FFFF */
			if (ok) {
				dfs_buf_add(out, p + i, n);
				i += n - 1;
			} else {
				dfs_buf_addc(out, '?');
			}
		}
	}
}

void dfs_xml_str(dfs_buf *out, const char *s)
{
	dfs_xml_text(out, s ? s : "", s ? strlen(s) : 0);
}

void dfs_human_bytes(char *buf, size_t n, double b)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	int u = 0;
	while (fabs(b) >= 1024 && u < 6) {
		b /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, n, "%.0f B", b);
	else
		snprintf(buf, n, "%.2f %s", b, unit[u]);
}

void dfs_human_num(char *buf, size_t n, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, n, "%.0f", v);
	else if (fabs(v) >= 100)
		snprintf(buf, n, "%.1f", v);
	else
		snprintf(buf, n, "%.4g", v);
}

/* "316 us", "1 ms", "3.16 s" */
static void duration(char *buf, size_t n, double d)
{
	if (d < 1e-3 * 0.999)
		snprintf(buf, n, "%.3g us", d * 1e6);
	else if (d < 0.999)
		snprintf(buf, n, "%.3g ms", d * 1e3);
	else
		snprintf(buf, n, "%.3g s", d);
}

void dfs_duration_label(char *buf, size_t n, int b)
{
	if (b <= 0) {
		snprintf(buf, n, "< 1 us");
		return;
	}
	char lo[24], hi[24];
	double d = pow(10, (b - 1) / 2.0 - 6);
	duration(lo, sizeof(lo), d);
	duration(hi, sizeof(hi), d * sqrt(10));
	if (b >= DUR_BINS - 1)
		snprintf(buf, n, ">= %s", lo);
	else
		snprintf(buf, n, "%s-%s", lo, hi);
}

static void fmt(char *buf, size_t n, double v, bool bytes)
{
	if (bytes)
		dfs_human_bytes(buf, n, v);
	else
		dfs_human_num(buf, n, v);
}

void dfs_svg_fit(char *buf, size_t n, const char *s, size_t len, size_t max)
{
	if (max < 8)
		max = 8;
	if (len <= max) {
		snprintf(buf, n, "%.*s", (int)len, s);
		return;
	}
	/* the start and the end, which say more than the middle */
	size_t head = (max - 3) / 3, tail = max - 3 - head;
	/* (not inside a UTF-8 sequence) */
	while (head > 0 && ((unsigned char)s[head] & 0xc0) == 0x80)
		head--;
	while (tail > 0 && ((unsigned char)s[len - tail] & 0xc0) == 0x80)
		tail--;
	snprintf(buf, n, "%.*s...%.*s", (int)head, s, (int)tail, s + len - tail);
}

/* The document and its title, cut to fit the width left of a legend of
 * `legend_w` pixels (the whole title is then its tooltip). */
static void begin_beside(dfs_buf *out, int h, const char *title, int legend_w)
{
	size_t max = TITLE_CHARS - (size_t)(legend_w + 7) / 8;
	dfs_buf_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
	               "height=\"%d\" viewBox=\"0 0 %d %d\" " FONT ">\n"
	               "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n"
	               "<text x=\"8\" y=\"16\" font-size=\"13\" font-weight=\"bold\">",
	               W, h, W, h, W, h);
	size_t len = strlen(title);
	if (len <= max) {
		dfs_xml_str(out, title);
	} else {
		char cut[TITLE_CHARS + 8];
		dfs_svg_fit(cut, sizeof(cut), title, len, max);
		dfs_buf_adds(out, "<title>");
		dfs_xml_str(out, title);
		dfs_buf_adds(out, "</title>");
		dfs_xml_str(out, cut);
	}
	dfs_buf_adds(out, "</text>\n");
}

static void begin(dfs_buf *out, int h, const char *title)
{
	begin_beside(out, h, title, 0);
}

/* the width of a legend of ns series */
static int legend_width(const struct series *s, size_t ns)
{
	int w = 10;
	for (size_t k = 0; k < ns; k++)
		w += 8 + 7 * (int)strlen(s[k].name) + 16;
	return w;
}

static void end(dfs_buf *out)
{
	dfs_buf_adds(out, "</svg>\n");
}

static void legend(dfs_buf *out, const struct series *s, size_t ns, int y)
{
	int x = W - 10;
	for (size_t k = ns; k-- > 0;) {
		x -= 8 + 7 * (int)strlen(s[k].name) + 16;
		dfs_buf_printf(out, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" "
		               "fill=\"%s\"/><text x=\"%d\" y=\"%d\">", x, y - 9,
		               s[k].color, x + 14, y);
		dfs_xml_str(out, s[k].name);
		dfs_buf_adds(out, "</text>\n");
	}
}

void dfs_svg_empty(dfs_buf *out, const char *title, const char *why)
{
	begin(out, 60, title);
	dfs_buf_adds(out, "<text x=\"8\" y=\"42\" fill=\"#666666\">");
	dfs_xml_str(out, why);
	dfs_buf_adds(out, "</text>\n");
	end(out);
}

void dfs_svg_bars(dfs_buf *out, const char *title, const char *const *labels,
                  size_t n, const struct series *s, size_t ns, bool bytes)
{
	int bar = 12, gap = 6, left = 230, top = 30;
	int h = top + (n ? (int)n * (bar * (int)ns + gap) : bar + gap) + 14;
	begin_beside(out, h, title, legend_width(s, ns));
	legend(out, s, ns, 16);
	if (n == 0)
		dfs_buf_printf(out, "<text x=\"%d\" y=\"%d\">nothing to show</text>\n", left,
		               top + bar);
	double max = 0;
	for (size_t k = 0; k < ns; k++)
		for (size_t i = 0; i < n; i++)
			if (s[k].v[i] > max)
				max = s[k].v[i];
	int width = W - left - 110;
	char num[48];
	for (size_t i = 0; i < n; i++) {
		int y = top + (int)i * (bar * (int)ns + gap);
		dfs_buf_printf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">",
		               left - 6, y + bar * (int)ns / 2 + 4);
		dfs_xml_str(out, labels[i]);
		dfs_buf_adds(out, "</text>\n");
		for (size_t k = 0; k < ns; k++) {
			double v = s[k].v[i];
			double w = max > 0 && v > 0 ? v / max * width : 0;
			fmt(num, sizeof(num), v, bytes);
			dfs_buf_printf(out, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
			               "fill=\"%s\"><title>%s</title></rect>"
			               "<text x=\"%.1f\" y=\"%d\">%s</text>\n",
			               left, y + bar * (int)k, w, bar - 1, s[k].color, num,
			               left + w + 4, y + bar * (int)k + bar - 2, num);
		}
	}
	end(out);
}

static void axis_x(dfs_buf *out, int left, int width, int y, double x0,
                   double x1, const char *label)
{
	char a[48], b[48];
	dfs_human_num(a, sizeof(a), x0);
	dfs_human_num(b, sizeof(b), x1);
	dfs_buf_printf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888888\"/>\n"
	               "<text x=\"%d\" y=\"%d\">%s</text>"
	               "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>"
	               "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">",
	               left, y, left + width, y, left, y + 13, a, left + width, y + 13, b,
	               left + width / 2, y + 13);
	dfs_xml_str(out, label);
	dfs_buf_adds(out, "</text>\n");
}

void dfs_svg_columns(dfs_buf *out, const char *title, const char *xlabel,
                     double x0, double x1, size_t n, const struct series *s,
                     size_t ns, bool bytes)
{
	dfs_svg_columns_ticks(out, title, xlabel, x0, x1, NULL, 0, n, s, ns, bytes);
}

void dfs_svg_columns_ticks(dfs_buf *out, const char *title, const char *xlabel,
                           double x0, double x1, const char *const *ticks, size_t nticks,
                           size_t n, const struct series *s, size_t ns, bool bytes)
{
	int left = 80, top = 30, height = 160, width = W - left - 20;
	begin_beside(out, top + height + (nticks >= 2 ? 38 : 34), title, legend_width(s, ns));
	legend(out, s, ns, 16);
	double max = 0;
	for (size_t k = 0; k < ns; k++)
		for (size_t i = 0; i < n; i++)
			if (s[k].v[i] > max)
				max = s[k].v[i];
	char num[48];
	fmt(num, sizeof(num), max, bytes);
	dfs_buf_printf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>"
	               "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>\n",
	               left - 4, top + 8, num, left - 4, top + height);
	double cw = n ? (double)width / (double)n : width;
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < ns; k++) {
			double v = s[k].v[i];
			if (!(v > 0) || !(max > 0))
				continue;
			double h = v / max * height;
			double sub = cw / (double)ns;
			fmt(num, sizeof(num), v, bytes);
			dfs_buf_printf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
			               "height=\"%.2f\" fill=\"%s\"><title>%s</title></rect>\n",
			               left + cw * (double)i + sub * (double)k,
			               top + height - h, sub > 1.5 ? sub - 0.5 : sub, h,
			               s[k].color, num);
		}
	}
	if (nticks < 2) {
		axis_x(out, left, width, top + height, x0, x1, xlabel);
	} else {
		/* labels evenly from the left end to the right end, the axis's
		 * name under them */
		int y = top + height;
		dfs_buf_printf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		               "stroke=\"#888888\"/>\n", left, y, left + width, y);
		for (size_t k = 0; k < nticks; k++) {
			int x = left + (int)((double)width * (double)k / (double)(nticks - 1));
			dfs_buf_printf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
			               "stroke=\"#888888\"/><text x=\"%d\" y=\"%d\" "
			               "text-anchor=\"%s\">", x, y, x, y + 4, x, y + 15,
			               k == 0 ? "start" : k + 1 == nticks ? "end" : "middle");
			dfs_xml_str(out, ticks[k]);
			dfs_buf_adds(out, "</text>\n");
		}
		dfs_buf_printf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">",
		               left + width / 2, y + 30);
		dfs_xml_str(out, xlabel);
		dfs_buf_adds(out, "</text>\n");
	}
	end(out);
}

/* ---- grids ------------------------------------------------------------------ */

/* shades of a grid: a log scale from the smallest value to the largest */
#define SHADES 8

static int shade(double v, double lo, double hi)
{
	if (!(hi > lo) || !(v > lo))
		return v > 0 && hi > lo ? 0 : SHADES - 1;
	int s = (int)(log(v / lo) / log(hi / lo) * SHADES);
	return s < 0 ? 0 : s >= SHADES ? SHADES - 1 : s;
}

static double shade_opacity(int s)
{
	return 0.15 + 0.85 * (double)(s + 1) / SHADES;
}

/* the value of a cell of the merged grid: rows [r*kr, ...), columns
 * [c*kc, ...) of the original summed */
static double merged(const struct grid *g, const double *cells, size_t kr, size_t kc,
                     size_t r, size_t c)
{
	double v = 0;
	size_t r1 = (r + 1) * kr < g->rows ? (r + 1) * kr : g->rows;
	size_t c1 = (c + 1) * kc < g->cols ? (c + 1) * kc : g->cols;
	for (size_t i = r * kr; i < r1; i++)
		for (size_t j = c * kc; j < c1; j++)
			v += cells[i * (g->stride ? g->stride : g->cols) + j];
	return v;
}

static size_t ceil_div(size_t a, size_t b)
{
	return (a + b - 1) / b;
}

/* the text of a range of rows (ranks, or offsets) */
static void row_range(const struct grid *g, size_t a, size_t b, char *buf, size_t n)
{
	if (g->ranks) {
		int64_t lo = dfs_facts_bin_rank(g->ranks, a);
		int64_t hi = dfs_facts_bin_rank(g->ranks, b) - 1;
		if (b >= g->ranks->rank_bins)
			hi = g->ranks->nprocs - 1;
		if (hi <= lo)
			snprintf(buf, n, "rank %lld", (long long)lo);
		else
			snprintf(buf, n, "ranks %lld-%lld", (long long)lo, (long long)hi);
		return;
	}
	char x[40], y[40];
	double step = (g->y1 - g->y0) / (double)g->rows;
	fmt(x, sizeof(x), g->y0 + step * (double)a, g->y_bytes);
	fmt(y, sizeof(y), g->y0 + step * (double)b, g->y_bytes);
	snprintf(buf, n, "%s %s-%s", g->ylabel, x, y);
}

void dfs_svg_grid(dfs_buf *out, const struct grid *g)
{
	int left = 80, top = 30, width = W - left - 20;
	int height = g->rows > 64 ? 256 : (int)g->rows * 4 + 64;
	int layers = g->cells[1] ? 2 : 1;
	bool sum = layers == 2 && g->sum;
	/* merge columns, then rows, two by two until few enough cells are
	 * drawn: a bounded size whatever the grid holds */
	size_t kr = 1, kc = 1, R = g->rows, C = g->cols, drawn;
	double lo = INFINITY, hi = 0;
	for (;;) {
		R = ceil_div(g->rows, kr);
		C = ceil_div(g->cols, kc);
		drawn = 0;
		lo = INFINITY;
		hi = 0;
		for (size_t r = 0; r < R; r++)
			for (size_t c = 0; c < C; c++) {
				double v[2] = {merged(g, g->cells[0], kr, kc, r, c),
				               layers > 1 ? merged(g, g->cells[1], kr, kc, r, c) : 0};
				if (sum) {
					v[0] += v[1];
					v[1] = 0;
				}
				for (int l = 0; l < 2; l++) {
					if (!(v[l] > 0))
						continue;
					drawn++;
					lo = v[l] < lo ? v[l] : lo;
					hi = v[l] > hi ? v[l] : hi;
				}
			}
		if (drawn <= g->budget || (R == 1 && C == 1))
			break;
		if (C > 1 && (kc <= kr || R == 1))
			kc *= 2;
		else
			kr *= 2;
	}
	bool scale = hi > 0;
	struct series two[] = {{g->name[0], g->color[0], NULL}, {g->name[1], g->color[1], NULL}};
	bool keyed = layers == 2 && !sum;
	begin_beside(out, top + height + (scale ? 58 : 34), g->title,
	             keyed ? legend_width(two, 2) : 0);
	if (keyed)
		legend(out, two, 2, 16);
	/* the rows' axis: ranks top-down, offsets bottom-up */
	char a[64], b[64];
	if (g->ranks) {
		snprintf(a, sizeof(a), "0");
		snprintf(b, sizeof(b), "%lld", (long long)(g->ranks->nprocs - 1));
	} else {
		fmt(a, sizeof(a), g->y1, g->y_bytes);
		fmt(b, sizeof(b), g->y0, g->y_bytes);
	}
	dfs_buf_printf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
	               "fill=\"none\" stroke=\"#cccccc\"/>\n"
	               "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>"
	               "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>"
	               "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">",
	               left, top, width, height, left - 4, top + 10, a, left - 4,
	               top + height, b, left - 4, top + height / 2 + 4);
	dfs_xml_str(out, g->ylabel);
	dfs_buf_adds(out, "</text>\n");
	/* the cells, in units of the original bins (one rect per merged cell;
	 * without tooltips, runs of a row with one shade are one rect) */
	double cw = (double)width / (double)g->cols, ch = (double)height / (double)g->rows;
	dfs_buf_printf(out, "<g transform=\"translate(%d,%d) scale(%.4f,%.4f)\" "
	               "shape-rendering=\"crispEdges\">\n", left, top, cw, ch);
	double xstep = (g->x1 - g->x0) / (double)g->cols;
	for (int l = 0; l < (sum ? 1 : layers); l++) {
		dfs_buf_printf(out, "<g fill=\"%s\">\n", g->color[l]);
		for (size_t r = 0; r < R; r++) {
			size_t r0 = r * kr, r1 = r0 + kr < g->rows ? r0 + kr : g->rows;
			size_t y = g->ranks ? r0 : g->rows - r1;
			for (size_t c = 0; c < C; c++) {
				double rd = merged(g, g->cells[l], kr, kc, r, c);
				double wr = sum ? merged(g, g->cells[1], kr, kc, r, c) : 0;
				double v = rd + wr;
				if (!(v > 0))
					continue;
				int s = shade(v, lo, hi);
				size_t c0 = c * kc, c1 = c0 + kc < g->cols ? c0 + kc : g->cols;
				if (!g->tooltips) {
					/* (a run of one shade) */
					while (c + 1 < C) {
						double nv = merged(g, g->cells[l], kr, kc, r, c + 1);
						if (!(nv > 0) || shade(nv, lo, hi) != s)
							break;
						c++;
						c1 = (c + 1) * kc < g->cols ? (c + 1) * kc : g->cols;
					}
				}
				dfs_buf_printf(out, "<rect x=\"%zu\" y=\"%zu\" width=\"%zu\" "
				               "height=\"%zu\"", c0, y, c1 - c0, r1 - r0);
				if (s < SHADES - 1)
					dfs_buf_printf(out, " fill-opacity=\".%02d\"",
					               (int)lround(shade_opacity(s) * 100));
				if (!g->tooltips) {
					dfs_buf_adds(out, "/>\n");
					continue;
				}
				/* "ranks 0-3, 1-2 s: 475336 B (464 KiB) read" */
				char rows[96], t0[32], t1[32];
				row_range(g, r0, r1, rows, sizeof(rows));
				dfs_human_num(t0, sizeof(t0), g->x0 + xstep * (double)c0);
				dfs_human_num(t1, sizeof(t1), g->x0 + xstep * (double)c1);
				dfs_buf_printf(out, "><title>%s, %s-%s s: ", rows, t0, t1);
				if (sum && rd > 0 && wr > 0)
					dfs_buf_printf(out, "%.0f B %s + %.0f B %s", rd, g->name[0], wr,
					               g->name[1]);
				else
					dfs_buf_printf(out, "%.0f %s", v, g->unit);
				if (g->bytes && v >= 1024) {
					char h[48];
					dfs_human_bytes(h, sizeof(h), v);
					dfs_buf_printf(out, " (%s)", h);
				}
				if (sum && !(rd > 0 && wr > 0))
					dfs_buf_printf(out, " %s", rd > 0 ? g->name[0] : g->name[1]);
				dfs_buf_adds(out, "</title></rect>\n");
			}
		}
		dfs_buf_adds(out, "</g>\n");
	}
	dfs_buf_adds(out, "</g>\n");
	axis_x(out, left, width, top + height, g->x0, g->x1, g->xlabel);
	if (scale) {
		/* the colour bar: a box per shade, the values at its ends */
		char lv[48], hv[48];
		fmt(lv, sizeof(lv), lo, g->bytes);
		fmt(hv, sizeof(hv), hi, g->bytes);
		int y = top + height + 30;
		dfs_buf_printf(out, "<text x=\"%d\" y=\"%d\">", left, y + 10);
		dfs_xml_str(out, g->scale);
		dfs_buf_printf(out, ": %s</text>\n", lv);
		int x = left + (int)(6.2 * (double)(strlen(g->scale) + 2 + strlen(lv))) + 8;
		for (int l = 0; l < (sum ? 1 : layers); l++)
			for (int s = 0; s < SHADES; s++)
				dfs_buf_printf(out, "<rect x=\"%d\" y=\"%d\" width=\"16\" height=\"%d\" "
				               "fill=\"%s\" fill-opacity=\"%.2f\"/>\n", x + 16 * s,
				               y + (layers == 2 && !sum ? 6 * l : 0),
				               layers == 2 && !sum ? 6 : 12, g->color[l],
				               shade_opacity(s));
		dfs_buf_printf(out, "<text x=\"%d\" y=\"%d\">%s", x + 16 * SHADES + 6, y + 10, hv);
		if (kr > 1 || kc > 1)
			dfs_buf_printf(out, " (log scale; cells of %zu x %zu bins)", kr, kc);
		else
			dfs_buf_adds(out, " (log scale)");
		dfs_buf_adds(out, "</text>\n");
	}
	end(out);
}

void dfs_svg_lanes(dfs_buf *out, const char *title, const struct facts *f)
{
	size_t rows = f->rank_bins + 1;
	int left = 80, top = 30, lane = rows > 64 ? 2 : rows > 16 ? 6 : 12;
	int height = (int)rows * lane + 4, width = W - left - 20;
	begin(out, top + height + 34, title);
	static const struct series kinds[] = {
		{"open to close", "#bbbbbb", NULL},
		{"reads", "#1f77b4", NULL},
		{"writes", "#d62728", NULL},
	};
	legend(out, kinds, 3, 16);
	double span = f->tl_end > 0 ? f->tl_end : 1;
	/* the first rank of every few lanes, as far apart as the text needs */
	size_t every = lane >= 12 ? 1 : lane >= 6 ? 4 : 16;
	int dy = lane >= 12 ? lane / 2 + 4 : 8;
	for (size_t r = 0; r < f->rank_bins; r += every)
		dfs_buf_printf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s%lld</text>\n",
		               left - 4, top + (int)r * lane + dy,
		               r ? "" : "rank ", (long long)dfs_facts_bin_rank(f, r));
	dfs_buf_printf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">shared</text>\n",
	               left - 4, lane >= 12 ? top + (int)f->rank_bins * lane + dy : top + height);
	for (size_t r = 0; r < rows; r++) {
		size_t b = r == f->rank_bins ? RANK_BINS : r;
		const double *as[] = {&f->tl_open[b], &f->tl_rs[b], &f->tl_ws[b]};
		const double *bs[] = {&f->tl_close[b], &f->tl_re[b], &f->tl_we[b]};
		for (int k = 0; k < 3; k++) {
			double a = *as[k], e = *bs[k];
			if (!(e > 0) || !isfinite(a) || e < a)
				continue;
			double x = left + a / span * width, w = (e - a) / span * width;
			int th = k == 0 ? lane : lane > 2 ? lane / 2 : 1;
			dfs_buf_printf(out, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" "
			               "height=\"%d\" fill=\"%s\"/>\n", x,
			               top + (int)r * lane + (k == 2 ? lane - th : 0),
			               w < 0.5 ? 0.5 : w, th, kinds[k].color);
		}
	}
	axis_x(out, left, width, top + height, 0, span, "seconds since the job started");
	end(out);
}
