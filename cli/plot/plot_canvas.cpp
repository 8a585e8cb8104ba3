#include "plot_canvas.hpp"

#include <cairo-pdf.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "rankmap/error.hpp"

namespace rankmap::cli {
namespace {

cairo_status_t append(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

std::string escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string number(double v) {
  char s[32];
  std::snprintf(s, sizeof s, "%.2f", v);
  std::string t = s;
  while (t.back() == '0') t.pop_back();
  if (t.back() == '.') t.pop_back();
  return t;
}

std::string rgb(Colour c) {
  char s[16];
  std::snprintf(s, sizeof s, "#%02x%02x%02x", static_cast<int>(std::lround(std::clamp(c.r, 0.0, 1.0) * 255)),
                static_cast<int>(std::lround(std::clamp(c.g, 0.0, 1.0) * 255)),
                static_cast<int>(std::lround(std::clamp(c.b, 0.0, 1.0) * 255)));
  return s;
}

// An SVG element: `attributes`, then its class and <title> where given.
std::string element(const std::string& tag, const std::string& attributes, const std::string& title,
                    const std::string& mark) {
  std::string e = "<" + tag + " " + attributes;
  if (!mark.empty()) e += " class=\"" + mark + "\"";
  if (title.empty()) return e + "/>\n";
  return e + "><title>" + escaped(title) + "</title></" + tag + ">\n";
}

}  // namespace

std::string picture_format(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".png" || ext == ".svg" || ext == ".pdf") return ext.substr(1);
  throw Error(path, 0, "unknown picture format '" + ext + "' (expected .png, .svg or .pdf)");
}

Canvas::Canvas(const std::string& format, int width, int height) : format_(format) {
  if (format == "svg") {
    bytes_ = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
             std::to_string(width) + "\" height=\"" + std::to_string(height) + "\" viewBox=\"0 0 " +
             std::to_string(width) + " " + std::to_string(height) +
             "\" font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
    return;
  }
  if (format == "png")
    surface_ = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height);
  else
    surface_ = cairo_pdf_surface_create_for_stream(append, &bytes_, width, height);
  if (cairo_surface_status(surface_) != CAIRO_STATUS_SUCCESS)
    throw Error("cairo could not make a " + format + " surface");
  cr_ = cairo_create(surface_);
  cairo_set_source_rgb(cr_, 1, 1, 1);
  cairo_paint(cr_);
  cairo_select_font_face(cr_, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
}

Canvas::~Canvas() {
  if (cr_) cairo_destroy(cr_);
  if (surface_) cairo_surface_destroy(surface_);
}

std::string Canvas::finish() {
  if (format_ == "svg") return std::move(bytes_) + svg_ + "</svg>\n";
  cairo_surface_flush(surface_);
  if (format_ == "png") {
    if (cairo_surface_write_to_png_stream(surface_, append, &bytes_) != CAIRO_STATUS_SUCCESS)
      throw Error("cairo could not write the PNG");
  } else {
    cairo_destroy(cr_);
    cr_ = nullptr;
    cairo_surface_finish(surface_);
  }
  return std::move(bytes_);
}

void Canvas::text(double x, double y, const std::string& s, double size, double align, bool vertical) {
  if (format_ == "svg") {
    const char* anchor = align >= 0.75 ? "end" : align >= 0.25 ? "middle" : "start";
    svg_ += "<text x=\"" + number(x) + "\" y=\"" + number(y) + "\" font-size=\"" + number(size) +
            "\" fill=\"#1a1a1a\" text-anchor=\"" + anchor + "\"" +
            (vertical ? " transform=\"rotate(-90 " + number(x) + " " + number(y) + ")\"" : "") + ">" + escaped(s) +
            "</text>\n";
    return;
  }
  cairo_save(cr_);
  cairo_set_source_rgb(cr_, 0.1, 0.1, 0.1);
  cairo_set_font_size(cr_, size);
  cairo_text_extents_t e;
  cairo_text_extents(cr_, s.c_str(), &e);
  cairo_translate(cr_, x, y);
  if (vertical) cairo_rotate(cr_, -M_PI / 2);
  cairo_move_to(cr_, -align * e.x_advance, 0);
  cairo_show_text(cr_, s.c_str());
  cairo_restore(cr_);
}

void Canvas::rectangle(double x, double y, double w, double h, Colour c, const std::string& title,
                       const std::string& mark) {
  if (format_ == "svg") {
    svg_ += element("rect",
                    "x=\"" + number(x) + "\" y=\"" + number(y) + "\" width=\"" + number(w) + "\" height=\"" +
                        number(h) + "\" fill=\"" + rgb(c) + "\"",
                    title, mark);
    return;
  }
  cairo_set_source_rgb(cr_, c.r, c.g, c.b);
  cairo_rectangle(cr_, x, y, w, h);
  cairo_fill(cr_);
}

void Canvas::line(double x1, double y1, double x2, double y2, double width, Colour c, const std::string& title,
                  const std::string& mark) {
  if (format_ == "svg") {
    svg_ += element("line",
                    "x1=\"" + number(x1) + "\" y1=\"" + number(y1) + "\" x2=\"" + number(x2) + "\" y2=\"" + number(y2) +
                        "\" stroke=\"" + rgb(c) + "\" stroke-width=\"" + number(width) + "\"",
                    title, mark);
    return;
  }
  cairo_set_source_rgb(cr_, c.r, c.g, c.b);
  cairo_set_line_width(cr_, width);
  cairo_move_to(cr_, x1, y1);
  cairo_line_to(cr_, x2, y2);
  cairo_stroke(cr_);
}

void Canvas::circle(double cx, double cy, double radius, Colour c, bool filled, double width, const std::string& title,
                    const std::string& mark) {
  if (format_ == "svg") {
    const std::string paint = filled ? "fill=\"" + rgb(c) + "\""
                                     : "fill=\"none\" stroke=\"" + rgb(c) + "\" stroke-width=\"" + number(width) + "\"";
    svg_ +=
        element("circle", "cx=\"" + number(cx) + "\" cy=\"" + number(cy) + "\" r=\"" + number(radius) + "\" " + paint,
                title, mark);
    return;
  }
  cairo_set_source_rgb(cr_, c.r, c.g, c.b);
  cairo_new_sub_path(cr_);
  cairo_arc(cr_, cx, cy, radius, 0, 2 * M_PI);
  if (filled) {
    cairo_fill(cr_);
  } else {
    cairo_set_line_width(cr_, width);
    cairo_stroke(cr_);
  }
}

double ColourScale::fraction(double value) const {
  if (high <= low) return 1;
  if (!log) return std::clamp((value - low) / (high - low), 0.0, 1.0);
  return std::clamp((std::log(std::max(value, low)) - std::log(low)) / (std::log(high) - std::log(low)), 0.0, 1.0);
}

Colour ColourScale::colour(double value) const {
  // Viridis at five stops, linear between them.
  static constexpr double stops[5][3] = {{0.267, 0.005, 0.329},
                                         {0.229, 0.322, 0.546},
                                         {0.128, 0.567, 0.551},
                                         {0.369, 0.789, 0.383},
                                         {0.993, 0.906, 0.144}};
  const double t = fraction(value) * 4;
  const int i = std::min(3, static_cast<int>(t));
  const double f = t - i;
  return {stops[i][0] + f * (stops[i + 1][0] - stops[i][0]), stops[i][1] + f * (stops[i + 1][1] - stops[i][1]),
          stops[i][2] + f * (stops[i + 1][2] - stops[i][2])};
}

std::vector<std::string> ColourScale::draw_bar(Canvas& canvas, double x, double y, double height,
                                               const std::string& title,
                                               const std::function<std::string(double)>& label) const {
  const int steps = 128;
  for (int i = 0; i < steps; ++i) {
    const double f = (i + 0.5) / steps;
    const double v = log ? std::exp(std::log(low) + (std::log(high) - std::log(low)) * f) : low + (high - low) * f;
    canvas.rectangle(x, y + height * (steps - 1 - i) / steps, 14, height / steps + 0.5, colour(v));
  }
  std::vector<std::string> labels;
  for (double v : ticks()) {
    const double at = fraction(v);
    labels.push_back(label(v));
    canvas.rectangle(x + 14, y + height * (1 - at) - 0.5, 4, 1, {0.1, 0.1, 0.1});
    canvas.text(x + 21, y + height * (1 - at) + 4, labels.back(), 10);
  }
  canvas.text(x, y - 8, title, 11);
  return labels;
}

std::vector<double> ColourScale::ticks() const {
  if (high <= low) return {low};
  std::vector<double> ticks;
  if (!log) {  // whole steps, at least 4 where the range has them
    const double step = std::max(1.0, std::floor((high - low) / 4));
    for (double v = std::ceil(low); v <= high + 1e-9; v += step) ticks.push_back(v);
    return ticks;
  }
  // Powers of ten in range; with fewer than 4, also 2x and 5x them; with
  // fewer still (a range under a factor of ten), 4 even log steps.
  for (const std::vector<double>& mantissas : {std::vector<double>{1}, std::vector<double>{1, 2, 5}}) {
    ticks.clear();
    for (int p = static_cast<int>(std::floor(std::log10(low))); p <= static_cast<int>(std::ceil(std::log10(high))); ++p)
      for (double m : mantissas)
        if (const double v = m * std::pow(10.0, p); v >= low * (1 - 1e-9) && v <= high * (1 + 1e-9)) ticks.push_back(v);
    if (ticks.size() >= 4) return ticks;
  }
  ticks.clear();
  for (int k = 0; k < 4; ++k) ticks.push_back(std::exp(std::log(low) + (std::log(high) - std::log(low)) * k / 3));
  return ticks;
}

}  // namespace rankmap::cli
