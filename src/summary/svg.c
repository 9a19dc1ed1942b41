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

static void fmt(char *buf, size_t n, double v, bool bytes)
{
	if (bytes)
		dfs_human_bytes(buf, n, v);
	else
		dfs_human_num(buf, n, v);
}

static void begin(dfs_buf *out, int h, const char *title)
{
	dfs_buf_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
	               "height=\"%d\" viewBox=\"0 0 %d %d\" " FONT ">\n"
	               "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n"
	               "<text x=\"8\" y=\"16\" font-size=\"13\" font-weight=\"bold\">",
	               W, h, W, h, W, h);
	dfs_xml_str(out, title);
	dfs_buf_adds(out, "</text>\n");
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
	int h = top + (int)n * (bar * (int)ns + gap) + 14;
	begin(out, h, title);
	legend(out, s, ns, 16);
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
	int left = 80, top = 30, height = 160, width = W - left - 20;
	begin(out, top + height + 34, title);
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
	axis_x(out, left, width, top + height, x0, x1, xlabel);
	end(out);
}

void dfs_svg_grid(dfs_buf *out, const char *title, const char *xlabel,
                  const char *ylabel, double x1, double y1, size_t rows,
                  size_t cols, const double *cells, const char *color,
                  const double *cells2, const char *color2)
{
	dfs_svg_grid_span(out, title, xlabel, ylabel, 0, x1, y1, rows, cols, cells,
	                  color, cells2, color2);
}

void dfs_svg_grid_span(dfs_buf *out, const char *title, const char *xlabel,
                       const char *ylabel, double x0, double x1, double y1,
                       size_t rows, size_t cols, const double *cells,
                       const char *color, const double *cells2, const char *color2)
{
	int left = 80, top = 30, height = rows > 64 ? 256 : (int)rows * 4 + 64;
	int width = W - left - 20;
	begin(out, top + height + 34, title);
	double max = 0;
	for (size_t i = 0; i < rows * cols; i++)
		if (cells[i] > max || (cells2 && cells2[i] > max))
			max = cells2 && cells2[i] > cells[i] ? cells2[i] : cells[i];
	char a[48];
	dfs_human_num(a, sizeof(a), y1);
	dfs_buf_printf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
	               "fill=\"none\" stroke=\"#cccccc\"/>\n"
	               "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>"
	               "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>"
	               "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">",
	               left, top, width, height, left - 4, top + 10, left - 4,
	               top + height, a, left - 4, top + height / 2);
	dfs_xml_str(out, ylabel);
	dfs_buf_adds(out, "</text>\n");
	double cw = (double)width / (double)cols, ch = (double)height / (double)rows;
	for (int layer = 0; layer < 2; layer++) {
		const double *g = layer ? cells2 : cells;
		for (size_t r = 0; g && r < rows; r++) {
			for (size_t c = 0; c < cols; c++) {
				double v = g[r * cols + c];
				if (!(v > 0) || !(max > 0))
					continue;
				/* a log scale keeps faint cells visible */
				double o = 0.15 + 0.85 * log1p(v) / log1p(max);
				dfs_buf_printf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
				               "height=\"%.2f\" fill=\"%s\" fill-opacity=\"%.2f\"/>\n",
				               left + cw * (double)c, top + ch * (double)r, cw, ch,
				               layer ? color2 : color, o);
			}
		}
	}
	axis_x(out, left, width, top + height, x0, x1, xlabel);
	end(out);
}

void dfs_svg_lanes(dfs_buf *out, const char *title, const struct facts *f)
{
	size_t rows = f->rank_bins + 1;
	int left = 80, top = 30, lane = rows > 64 ? 2 : 6;
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
	size_t every = lane >= 6 ? 4 : 16;
	for (size_t r = 0; r < f->rank_bins; r += every)
		dfs_buf_printf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s%lld</text>\n",
		               left - 4, top + (int)r * lane + (lane > 8 ? lane : 8),
		               r ? "" : "rank ", (long long)dfs_facts_bin_rank(f, r));
	dfs_buf_printf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">shared</text>\n",
	               left - 4, top + height);
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
