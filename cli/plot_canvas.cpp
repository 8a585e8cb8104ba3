#include "plot_canvas.hpp"

#include <cairo-pdf.h>
#include <cairo-svg.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "rankmap/error.hpp"

namespace rankmap::cli {
namespace {

cairo_status_t append(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

}  // namespace

std::string picture_format(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".png" || ext == ".svg" || ext == ".pdf") return ext.substr(1);
  throw Error(path, 0, "unknown picture format '" + ext + "' (expected .png, .svg or .pdf)");
}

Canvas::Canvas(const std::string& format, int width, int height) : format_(format) {
  if (format == "png")
    surface_ = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height);
  else if (format == "svg")
    surface_ = cairo_svg_surface_create_for_stream(append, &bytes_, width, height);
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

void Canvas::rectangle(double x, double y, double w, double h, double r, double g, double b) {
  cairo_set_source_rgb(cr_, r, g, b);
  cairo_rectangle(cr_, x, y, w, h);
  cairo_fill(cr_);
}

void LogScale::colour(double bytes, double& r, double& g, double& b) const {
  // Viridis at five stops, linear between them.
  static constexpr double stops[5][3] = {{0.267, 0.005, 0.329},
                                         {0.229, 0.322, 0.546},
                                         {0.128, 0.567, 0.551},
                                         {0.369, 0.789, 0.383},
                                         {0.993, 0.906, 0.144}};
  double t = high > low ? (std::log(std::max(bytes, low)) - std::log(low)) / (std::log(high) - std::log(low)) : 1;
  t = std::clamp(t, 0.0, 1.0) * 4;
  const int i = std::min(3, static_cast<int>(t));
  const double f = t - i;
  r = stops[i][0] + f * (stops[i + 1][0] - stops[i][0]);
  g = stops[i][1] + f * (stops[i + 1][1] - stops[i][1]);
  b = stops[i][2] + f * (stops[i + 1][2] - stops[i][2]);
}

void LogScale::draw_bar(Canvas& canvas, double x, double y, double height, const std::string& title) const {
  const int steps = 128;
  for (int i = 0; i < steps; ++i) {
    double r, g, b;
    colour(std::exp(std::log(low) + (std::log(high) - std::log(low)) * (i + 0.5) / steps), r, g, b);
    canvas.rectangle(x, y + height * (steps - 1 - i) / steps, 14, height / steps + 0.5, r, g, b);
  }
  for (int p = static_cast<int>(std::ceil(std::log10(low))); p <= static_cast<int>(std::floor(std::log10(high))); ++p) {
    const double at = high > low ? (p * std::log(10) - std::log(low)) / (std::log(high) - std::log(low)) : 1;
    canvas.rectangle(x + 14, y + height * (1 - at) - 0.5, 4, 1, 0.1, 0.1, 0.1);
    canvas.text(x + 21, y + height * (1 - at) + 4, "1e" + std::to_string(p), 10);
  }
  canvas.text(x, y - 8, title, 11);
}

}  // namespace rankmap::cli
