// A user header: its functions are host and device in a device compile.
#pragma once
struct Vec2 {
  float x, y;
  Vec2 operator+(Vec2 o) const { return {x + o.x, y + o.y}; }
  float dot(Vec2 o) const { return x * o.x + y * o.y; }
};
template <typename T> T square(T v) { return v * v; }
