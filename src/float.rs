//! The one statement of PICA float rules. (Temporary placeholder in this branch: the real
//! module, with the project's own EX2/LG2 and the exhaustive check, is merged from `float`.)

pub fn pmul(a: f32, b: f32) -> f32 {
    let p = a * b;
    if p.is_nan() && !a.is_nan() && !b.is_nan() {
        0.0
    } else {
        p
    }
}
pub fn max(a: f32, b: f32) -> f32 {
    if a > b {
        a
    } else {
        b
    }
}
pub fn min(a: f32, b: f32) -> f32 {
    if a < b {
        a
    } else {
        b
    }
}
pub fn rcp(a: f32) -> f32 {
    1.0 / a
}
pub fn rsq(a: f32) -> f32 {
    1.0 / a.sqrt()
}
pub fn flr(a: f32) -> f32 {
    a.floor()
}
pub fn ex2(a: f32) -> f32 {
    a.exp2()
}
pub fn lg2(a: f32) -> f32 {
    a.log2()
}
pub fn mova_trunc(a: f32) -> i32 {
    a as i32
}
pub fn litp_pos(a: f32) -> f32 {
    if a > 0.0 {
        a
    } else {
        0.0
    }
}
pub fn litp_clamp(a: f32) -> f32 {
    a.clamp(-127.996_09, 127.996_09)
}
